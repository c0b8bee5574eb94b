import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { featureRoutes } from '../../../engine/http/server/app.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';

/**
 * Documented ahead of its handler (the run issue mounts it). When it is
 * mounted, the coverage test below fails until it is taken off this list.
 */
const DOCUMENTED_NOT_YET_MOUNTED: string[] = [];

describe('GET /v1/openapi.json', () => {
  let gw: TestGateway;
  let doc: any;
  before(async () => {
    gw = await startTestGateway({ PUBLIC_BASE_URL: 'https://api.example.com', EMBEDDED_BASE_URL: 'https://embedded.example.com' });
    const { status, body } = await call(gw, 'GET', '/v1/openapi.json', { auth: null });
    expect(status).to.equal(200);
    doc = body;
  });
  after(async () => {
    await gw.stop();
  });

  it('is an OpenAPI 3.1.0 document, version 1.0.0, served without authentication', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('1.0.0');
  });

  it('passes a maintained OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('lists the base URL and the embedded URL as servers, from PUBLIC_BASE_URL and EMBEDDED_BASE_URL', () => {
    expect(doc.servers.map((s: any) => s.url)).to.deep.equal(['https://api.example.com', 'https://embedded.example.com']);
  });

  it('declares the apiKey and endUserToken bearer schemes, and secures each operation with the right one', () => {
    expect(doc.components.securitySchemes.apiKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.endUserToken).to.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const security = (path: string, method: string) => doc.paths[path][method].security;
    expect(security('/v1/users', 'get')).to.deep.equal([{ apiKey: [] }]);
    expect(security('/v1/users', 'post')).to.deep.equal([{ apiKey: [] }]);
    expect(security('/v1/users/{userId}/token', 'get')).to.deep.equal([{ apiKey: [] }]);
    expect(security('/v1/companies', 'get')).to.deep.equal([{ apiKey: [] }]);
    expect(security('/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run', 'post')).to.deep.equal([{ endUserToken: [] }]);
    expect(security('/v1/openapi.json', 'get')).to.deep.equal([]);
  });

  it('documents a 200 and the default error response for every endpoint but itself, which declares only its 200 (the specification)', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        expect(op.responses['200'], `${method} ${path}`).to.have.property('content');
        if (path === '/v1/openapi.json') expect(Object.keys(op.responses)).to.deep.equal(['200']);
        else expect(op.responses.default, `${method} ${path}`).to.deep.equal({ $ref: '#/components/responses/Error' });
      }
    }
  });

  it('documents the run endpoint: its path parameters, its body and the envelope', () => {
    const op = doc.paths['/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run'].post;
    expect(op.parameters.map((p: any) => [p.name, p.in, p.required])).to.deep.equal([
      ['appId', 'path', true],
      ['appVersion', 'path', true],
      ['actionId', 'path', true],
    ]);
    const body = op.requestBody.content['application/json'].schema;
    expect(op.requestBody.required).to.equal(true);
    expect(body.required).to.deep.equal(['installationId']);
    expect(Object.keys(body.properties)).to.deep.equal(['installationId', 'actionArguments']);
    expect(op.responses['200'].content['application/json'].schema.required).to.deep.equal(['success', 'data', 'meta']);
  });

  it('documents the list companies query parameters with their limits', () => {
    const params = doc.paths['/v1/companies'].get.parameters;
    expect(params.map((p: any) => p.name)).to.deep.equal(['fields', 'limit', 'offset', 'sort', 'where']);
    const limit = params.find((p: any) => p.name === 'limit');
    expect(limit).to.deep.include({ in: 'query', required: false });
    expect(limit.schema).to.deep.include({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(params.find((p: any) => p.name === 'offset').schema).to.deep.include({ type: 'integer', minimum: 0, default: 0 });
  });

  it('documents every route mounted under /v1, and mounts every documented one', () => {
    const mounted = new Set<string>();
    for (const router of featureRoutes(gw.gateway.services)) {
      for (const layer of router.stack) {
        // Every route is mounted with a string path; a RegExp path would be a route this test cannot see.
        expect(layer.path, 'a route mounted with a RegExp').to.be.a('string');
        const path = String(layer.path);
        if (!path.startsWith('/v1')) continue;
        for (const method of layer.methods) {
          // The router answers HEAD for every GET on its own.
          if (method !== 'HEAD') mounted.add(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
        }
      }
    }
    const documented = new Set(Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    expect([...mounted].filter((r) => !documented.has(r)), 'mounted but not documented').to.deep.equal([]);
    expect([...documented].filter((r) => !mounted.has(r) && !DOCUMENTED_NOT_YET_MOUNTED.includes(r)), 'documented but not mounted').to.deep.equal([]);
    expect(DOCUMENTED_NOT_YET_MOUNTED.filter((r) => mounted.has(r)), 'mounted now: take it off DOCUMENTED_NOT_YET_MOUNTED').to.deep.equal([]);
  });

  it('uses the same schemas that validate requests: a body the document forbids is refused', async () => {
    const schema = doc.paths['/v1/users'].post.requestBody.content['application/json'].schema;
    expect(schema.additionalProperties).to.equal(false);
    const { status, body } = await documentedCall(gw, 'POST', '/v1/users', { body: { nickname: 'x' } });
    expect(status).to.equal(400);
    expect(body.error.message).to.equal('nickname: is not a known field');
  });
});

describe('the v1 users endpoints answer as documented', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.stop();
  });

  it('GET /v1/users', async () => {
    const { status, body } = await documentedCall(gw, 'GET', '/v1/users');
    expect(status).to.equal(200);
    expect(body.data.map((m: any) => m.email)).to.deep.equal(['owner@example.com']);
    expect((await documentedCall(gw, 'GET', '/v1/users', { auth: null })).status).to.equal(401);
  });

  it('POST /v1/users: a known externalId answers the existing userId with 200, changing nothing', async () => {
    const first = await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'crm-42', name: 'Ada', email: 'ada@example.com', isTestUser: true, metadata: { region: 'eu' } } });
    expect(first.status).to.equal(200);
    const again = await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'crm-42', name: 'Someone else' } });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    const stored = await gw.gateway.services.store.endUsers.findOne({ id: first.body.data.userId });
    expect(stored).to.include({ name: 'Ada', isTestUser: true });
    expect(await gw.gateway.services.store.endUsers.count({ externalId: 'crm-42' })).to.equal(1);
  });

  it('POST /v1/users: failures are the documented error response', async () => {
    expect((await documentedCall(gw, 'POST', '/v1/users', { body: [] })).status).to.equal(400);
    expect((await documentedCall(gw, 'POST', '/v1/users', { body: { email: 'nope' } })).status).to.equal(400);
    expect((await documentedCall(gw, 'POST', '/v1/users', { body: '{' })).status).to.equal(400);
  });

  it('GET /v1/openapi.json answers as it documents itself', async () => {
    expect((await documentedCall(gw, 'GET', '/v1/openapi.json', { auth: null })).status).to.equal(200);
  });
});
