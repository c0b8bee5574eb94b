import { expect } from 'chai';
import { fillUrlTemplate } from '../../../engine/core/arguments/url-template.ts';
import type { FieldProblem } from '../../../engine/platform/errors/index.ts';

function fill(template: string, variables: Record<string, string>, originVariables: string[] = []): { url: string; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const url = fillUrlTemplate(template, variables, 'auth exchange url', problems, { originVariables });
  return { url, problems };
}

describe('URL templates: each placeholder encoded for the part of the URL it is in', () => {
  it('fills a host label, a path segment and a query value', () => {
    const { url, problems } = fill('https://{{tenant}}.example.test/api/{{version}}/x?team={{team}}#{{frag}}', {
      tenant: 'acme-1',
      version: 'v2/beta',
      team: 'a&b=c d',
      frag: 'x y',
    });
    expect(problems).to.deep.equal([]);
    expect(url).to.equal('https://acme-1.example.test/api/v2%2Fbeta/x?team=a%26b%3Dc%20d#x%20y');
    expect(new URL(url).host).to.equal('acme-1.example.test');
  });

  it('refuses a path value holding a dot segment between slashes: encoded, it climbs on a server that decodes %2F', () => {
    for (const version of ['v2/../admin', '../../admin', 'a\\..\\b', './x']) {
      const { problems } = fill('https://api.example.test/api/{{version}}/x', { version });
      expect(problems, version).to.deep.equal([
        { field: 'connection.version', rule: 'hostVariable', message: 'auth exchange url cannot use {{version}}: its value holds a dot segment (. or ..) between slashes, which would change the path on a server that decodes %2F' },
      ]);
    }
  });

  for (const tenant of ['127.0.0.1:19305/exchange?', 'evil.test', 'a@b', 'a:80', 'x#', '-lead', ' ', 'é', 'a'.repeat(64)]) {
    it(`refuses ${JSON.stringify(tenant)} as a host label, naming the variable and not the value`, () => {
      const { problems } = fill('http://{{metadata.tenant}}.example.test/exchange', { 'metadata.tenant': tenant });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.include({ field: 'metadata.tenant', rule: 'hostVariable' });
      expect(problems[0]!.message).to.equal('auth exchange url cannot use {{metadata.tenant}}: its value is not one host label (letters, digits and inner hyphens, up to 63)');
    });
  }

  it('keeps a path value from climbing out of its segment: "." and ".." are refused (URL parsing reads even %2E%2E as ..)', () => {
    for (const name of ['.', '..']) {
      const { problems } = fill('https://api.example.test/files/{{name}}', { name });
      expect(problems[0]!.message).to.equal('auth exchange url cannot use {{name}}: its value is a dot segment (. or ..), which would change the path');
    }
    expect(fill('https://api.example.test/files/{{name}}', { name: '...' }).url).to.equal('https://api.example.test/files/...');
  });

  it('fills a declared whole-origin variable with the origin of an http(s) URL', () => {
    const declared = ['metadata.exchangeOrigin'];
    expect(fill('{{metadata.exchangeOrigin}}/exchange', { 'metadata.exchangeOrigin': 'https://hooks.customer.test:8443' }, declared).url).to.equal('https://hooks.customer.test:8443/exchange');
    for (const bad of ['ftp://x.test', 'https://user:pw@x.test', 'https://x.test/path', 'https://x.test?q', 'x.test', 'https://x.test#f']) {
      const { problems } = fill('{{metadata.exchangeOrigin}}/exchange', { 'metadata.exchangeOrigin': bad }, declared);
      expect(problems, bad).to.have.length(1);
      expect(problems[0]!.message, bad).to.equal('auth exchange url cannot use {{metadata.exchangeOrigin}}: its value is not an origin (http:// or https://, a host and an optional port, nothing else)');
    }
  });

  it('refuses a whole-origin placeholder that is not declared', () => {
    const { problems } = fill('{{metadata.exchangeOrigin}}/exchange', { 'metadata.exchangeOrigin': 'https://x.test' });
    expect(problems[0]!.message).to.equal('auth exchange url cannot use {{metadata.exchangeOrigin}} as its origin: it is not declared in originVariables');
  });
});

describe('OAuth URLs (authorize, token, refresh) are filled the same way', () => {
  it('refuses a shop value that would put the token endpoint under another domain (400 naming the variable)', async () => {
    const { fillTemplate } = await import('../../../engine/core/oauth/templates.ts');
    expect(fillTemplate('https://{{shop}}.shop.example.test/oauth/token', { shop: 'acme' }, 'auth oauth2 tokenUrl')).to.equal('https://acme.shop.example.test/oauth/token');
    let error: any = null;
    try {
      fillTemplate('https://{{shop}}.shop.example.test/oauth/token', { shop: 'evil.test#' }, 'auth oauth2 tokenUrl');
    } catch (e) {
      error = e;
    }
    expect(error?.code).to.equal('VALIDATION_ERROR');
    expect(error.details.problems).to.deep.equal([
      { field: 'connection.shop', rule: 'hostVariable', message: 'auth oauth2 tokenUrl cannot use {{shop}}: its value is not one host label (letters, digits and inner hyphens, up to 63)' },
    ]);
  });
});
