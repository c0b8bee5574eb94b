import { expect } from 'chai';
import { trimDescription } from '../../engine/authoring/openapi-operations.ts';

/**
 * `npm run description:trim` keeps the components the kept operations reach. A $ref's JSON pointer escapes a
 * slash in a key as ~1 (RFC 6901): PagerDuty's description points into `content/application~1json` of its
 * error responses, and the trim failed on it ("Cannot read properties of undefined").
 */
describe('trimming a provider description to the operations an app uses', () => {
  const error = { type: 'object', properties: { message: { type: 'string' } } };
  const doc = {
    openapi: '3.0.2',
    info: { title: 'T', version: '1' },
    paths: {
      '/incidents': { get: { responses: { '409': { $ref: '#/components/responses/Conflict' }, '400': { content: { 'application/json': { schema: { $ref: '#/components/responses/Conflict/content/application~1json/schema' } } } } } } },
      '/unused': { get: { responses: { '200': { $ref: '#/components/responses/Unused' } } } },
    },
    components: { responses: { Conflict: { description: 'c', content: { 'application/json': { schema: error } } }, Unused: { description: 'u' } } },
  };

  it('follows pointers with escaped keys and keeps only what the kept operations reach', () => {
    const trimmed = trimDescription(doc, [{ method: 'GET', documentPath: '/incidents' }]);
    expect(Object.keys(trimmed.paths)).to.deep.equal(['/incidents']);
    expect(trimmed.components.responses.Conflict.content['application/json'].schema).to.deep.equal(error);
    expect(trimmed.components.responses).not.to.have.property('Unused');
  });
});
