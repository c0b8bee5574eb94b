import { expect } from 'chai';
import { ImportError } from '../../../engine/authoring/import/import-error.ts';
import { baseUrlOf } from '../../../engine/authoring/import/servers.ts';

const of = (url: string, variables: object = {}) => {
  const notes: string[] = [];
  return { ...baseUrlOf({ servers: [{ url, variables }] }, 'api.json', (n) => notes.push(n)), notes };
};

describe('import servers', () => {
  it('a variable that is whole host labels or a path segment is an API argument set per connection', () => {
    const zendesk = of('https://{subdomain}.zendesk.com/api/{version}', { subdomain: { default: 'acme', description: 'Your Zendesk subdomain.' }, version: { default: 'v2', enum: ['v1', 'v2'] } });
    expect(zendesk.baseUrl).to.equal('https://{{subdomain}}.zendesk.com/api/{{version}}');
    expect(zendesk.example).to.equal('https://acme.zendesk.com/api/v2');
    expect(zendesk.arguments).to.deep.equal([
      { key: 'subdomain', dataType: 'String', description: 'Your Zendesk subdomain.', default: 'acme' },
      { key: 'version', dataType: 'List', description: "The server's {version}.", list: { type: 'Fixed', options: [{ value: 'v1' }, { value: 'v2' }] }, default: 'v2' },
    ]);
  });

  it('a variable anywhere else (a scheme, a port, a whole host) is fixed to its default, and noted', () => {
    const fixed = of('{scheme}://api.example.com:{port}/v1', { scheme: { default: 'https' }, port: { default: '8443' } });
    expect(fixed.baseUrl).to.equal('https://api.example.com:8443/v1');
    expect(fixed.notes).to.have.length(2);
  });

  it('a relative server URL, or none, needs --base-url', () => {
    expect(() => of('/api/v3')).to.throw(ImportError, 'api.json: the server URL "/api/v3" is not an absolute http(s) URL: give the API\'s base URL with --base-url https://...');
    expect(baseUrlOf({ servers: [{ url: '/api/v3' }] }, 'api.json', () => {}, 'https://petstore.example/api/v3').baseUrl).to.equal('https://petstore.example/api/v3');
  });
});
