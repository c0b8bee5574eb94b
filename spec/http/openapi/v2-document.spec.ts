import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { featureRoutes } from '../../../engine/http/server/app.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, objectSchemas } from '../../helpers/openapi.ts';

describe('GET /v2/openapi.json', () => {
  let gw: TestGateway;
  let doc: any;
  let v1: any;
  before(async () => {
    gw = await startTestGateway({ PUBLIC_BASE_URL: 'https://api.example.com' });
    const { status, body } = await call(gw, 'GET', '/v2/openapi.json', { auth: null });
    expect(status).to.equal(200);
    doc = body;
    v1 = (await call(gw, 'GET', '/v1/openapi.json', { auth: null })).body;
  });
  after(async () => {
    await gw.stop();
  });

  it('is an OpenAPI 3.1.0 document served without authentication, on the base URL', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('2.0.0');
    expect(doc.servers.map((s: any) => s.url)).to.deep.equal(['https://api.example.com']);
  });

  it('passes a maintained OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('leaves /v1/openapi.json exactly the v1 surface, version 1.0.0', () => {
    expect(v1.info.version).to.equal('1.0.0');
    expect(Object.keys(v1.paths).every((p) => p.startsWith('/v1/'))).to.equal(true);
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/v2/'))).to.equal(true);
  });

  it('documents every route mounted under /v2, and mounts every documented one', () => {
    const mounted = new Set<string>();
    for (const router of featureRoutes(gw.gateway.services)) {
      for (const layer of router.stack) {
        expect(layer.path, 'a route mounted with a RegExp').to.be.a('string');
        // A prefixed router's '/' route is mounted as '/v2/universal/apps/'.
        const path = String(layer.path).replace(/(.)\/$/, '$1');
        if (!path.startsWith('/v2')) continue;
        // A GET route answers HEAD too: it counts where the document describes HEAD on its own (the proxy). A wildcard (*path) is {path}.
        const template = path.replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)/g, '{$1}');
        for (const method of layer.methods) if (method !== 'HEAD' || doc.paths[template]?.head) mounted.add(`${method} ${template}`);
      }
    }
    const documented = new Set(Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    expect(mounted.size).to.be.greaterThan(15);
    expect([...mounted].filter((r) => !documented.has(r)), 'mounted but not documented').to.deep.equal([]);
    expect([...documented].filter((r) => !mounted.has(r)), 'documented but not mounted').to.deep.equal([]);
  });

  it('secures each operation as its handler does: API key, either credential for authorize, none for the callback and itself', () => {
    const security = (path: string, method: string) => doc.paths[path][method].security;
    expect(security('/v2/connections', 'post')).to.deep.equal([{ apiKey: [] }]);
    expect(security('/v2/universal/apps/{appSlug}/actions/{actionSlug}/run', 'post')).to.deep.equal([{ apiKey: [] }]);
    expect(security('/v2/connect/{appSlug}/authorize', 'get')).to.deep.equal([{ apiKey: [] }, { endUserToken: [] }]);
    expect(security('/v2/connect/callback', 'get')).to.deep.equal([]);
    expect(security('/v2/openapi.json', 'get')).to.deep.equal([]);
  });

  it('declares each success status as sent (201 on create, 302 for the callback) and the run\'s envelope 429 and 502', () => {
    expect(Object.keys(doc.paths['/v2/connections'].post.responses)).to.include('201').and.not.include('200');
    expect(Object.keys(doc.paths['/v2/installations'].post.responses)).to.include('201').and.not.include('200');
    expect(doc.paths['/v2/connect/callback'].get.responses['302'].headers.Location.required).to.equal(true);
    const run = doc.paths['/v2/universal/apps/{appSlug}/actions/{actionSlug}/run'].post.responses;
    expect(run['429'].content['application/json'].schema.required).to.deep.equal(['success', 'data', 'meta']);
    expect(run['502'].content['application/json'].schema.oneOf).to.have.length(2);
  });

  it('states additionalProperties on every object schema (a generator reads a missing one as "no properties")', () => {
    const silent = objectSchemas(doc).filter(([, schema]) => !('additionalProperties' in schema)).map(([at]) => at);
    expect(silent).to.deep.equal([]);
  });

  it('declares for each operation each status of each code it answers', () => {
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    // The auth's verification request: EGRESS_DENIED 403, VERIFICATION_FAILED and the outbound errors 502, UPSTREAM_TIMEOUT 504.
    expect(statuses('/v2/connections', 'post')).to.deep.equal(['201', '400', '401', '403', '404', '408', '413', '415', '431', '500', '502', '503', '504', 'default']);
    expect(statuses('/v2/connections/{connectionId}', 'patch')).to.deep.equal(['200', '400', '401', '403', '404', '408', '409', '413', '415', '431', '500', '502', '503', '504', 'default']);
    expect(statuses('/v2/connections/{connectionId}', 'delete')).to.deep.equal(['200', '400', '401', '404', '408', '409', '431', '500', '503', 'default']);
    expect(statuses('/v2/apps/{appSlug}/configuration', 'put')).to.deep.equal(['200', '400', '401', '408', '413', '415', '431', '500', '503', 'default']);
    expect(statuses('/v2/connect/callback', 'get')).to.deep.equal(['302', '400', '408', '431', '500', '503', 'default']);
    expect(statuses('/v2/universal/apps/{appSlug}/actions/{actionSlug}/run', 'post')).to.deep.equal([
      '200', '400', '401', '403', '404', '408', '409', '413', '415', '429', '431', '500', '502', '503', '504', 'default',
    ]);
    const code = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema.properties.error.properties.code.enum;
    expect(code('/v2/universal/apps/{appSlug}/actions/{actionSlug}/run', 'post', '400')).to.include.members(['CONNECTION_REQUIRED', 'CONNECTION_SELECTOR_CONFLICT', 'CONNECTION_APP_MISMATCH']);
    expect(code('/v2/connect/callback', 'get', '400')).to.deep.equal(['BAD_REQUEST', 'OAUTH_STATE_INVALID']);
  });

  it('a POST without a documented body (rotate-secret) answers a body it is sent as every POST does, and documents it: not JSON 400 INVALID_JSON, text/plain 415, over 1 MiB 413', async () => {
    const path = '/v2/webhooks/whk_000000000000000000000000/rotate-secret';
    // documentedCall holds each answer to the document: INVALID_JSON was not among the 400's codes, 413 and 415 not declared.
    const malformed = await documentedCall(gw, 'POST', path, { body: '{"a":' });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal('INVALID_JSON');
    const text = await documentedCall(gw, 'POST', path, { body: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).to.equal(415);
    expect(text.body.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    const large = await documentedCall(gw, 'POST', path, { body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) });
    expect(large.status).to.equal(413);
    // A JSON body it does not read is let be: the webhook is looked for as without one.
    expect((await documentedCall(gw, 'POST', path, { body: { any: 1 } })).status).to.equal(404);
  });

  it('every POST, PUT and PATCH but the proxy\'s documents the codes the JSON body reader answers, body or not', () => {
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      if (path.includes('/proxy/')) continue;
      for (const method of ['post', 'put', 'patch']) {
        const op = operations[method];
        if (!op) continue;
        expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(['400', '413', '415']);
        const codes = op.responses['400'].content['application/json'].schema.properties.error.properties.code.enum;
        expect(codes, `${method} ${path}`).to.include.members(['INVALID_JSON', 'INVALID_BODY_ENCODING']);
      }
    }
  });

  it('an unknown app\'s configuration is refused as documented: 400 naming appSlug', async () => {
    const { status, body } = await documentedCall(gw, 'PUT', '/v2/apps/nope/configuration', { body: { clientId: 'x' } });
    expect(status).to.equal(400);
    expect(body.error.details.problems[0].field).to.equal('appSlug');
  });

  it('uses the schemas that validate the requests', async () => {
    const patch = doc.paths['/v2/connections/{connectionId}'].patch.requestBody.content['application/json'].schema;
    expect(patch).to.include({ additionalProperties: false, minProperties: 1 });
    const { status, body } = await call(gw, 'PATCH', '/v2/connections/c_missing', { body: {} });
    expect(status).to.equal(400);
    expect(body.error.code).to.equal('VALIDATION_ERROR');
  });
});
