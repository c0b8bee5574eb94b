import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, V1_DOCUMENT } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const RUN = '/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run';
/** The one header of an app's answer that changes from run to run; examples show this value. */
const EXAMPLE_DATE = 'Tue, 24 Nov 2026 02:00:00 GMT';

/** An app whose base URL answers nobody: its runs end in UPSTREAM_UNREACHABLE. */
const DOWN_APP: Record<string, string> = {
  'down/app.yaml': 'id: down\nslug: down\nname: down\npublished: 1\n',
  'down/versions/1/api.yaml': 'baseUrl: http://127.0.0.1:9\nauths:\n  - token\n',
  'down/versions/1/auths/token.yaml': 'type: Bearer\nid: token\ntoken: fixed\n',
  'down/versions/1/actions/ping.yaml': 'id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\n',
  // A mapping that fails the same way every time (a timeout stops it wherever it happens to be).
  'shop/versions/1/actions/broken.yaml': 'id: broken\nslug: broken\nname: Broken\noperation: list\nmethod: GET\npath: /orders\nresponse: \'{ "data": body.result.total + "EUR" }\'\n',
};

/** The app's Date header pinned, so a real answer can be compared with its example. */
function pinned(body: any): any {
  if (body?.meta?.response?.headers?.date) body.meta.response.headers.date = EXAMPLE_DATE;
  return body;
}

describe('the v1 document declares every status an operation answers, with the body it sends', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let installationId: string;
  let token: string;
  const runV1 = (app: string, version: string, action: string, body: unknown, bearer = token) =>
    documentedCall({ url: gw.url, apiKey: bearer }, 'POST', `/v1/installation/apps/${app}/${version}/action/${action}/run`, { body });

  /** How each example in the document is produced: its operation, status and name, and the real call that answers it. */
  const producers: Record<string, Record<string, Record<string, () => Promise<{ status: number; body: any }>>>> = {
    listUsers: { '401': { UNAUTHORIZED: () => documentedCall(gw, 'GET', '/v1/users', { auth: 'igw_not-a-key' }) } },
    createEndUser: {
      '400': { VALIDATION_ERROR: () => documentedCall(gw, 'POST', '/v1/users', { body: { email: 'nope', nickname: 'x' } }) },
      '415': { UNSUPPORTED_MEDIA_TYPE: () => documentedCall(gw, 'POST', '/v1/users', { body: 'name=Ada', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }) },
    },
    getEndUserToken: { '404': { NOT_FOUND: () => documentedCall(gw, 'GET', '/v1/users/eu_missing/token') } },
    listCompanies: {
      '400': {
        VALIDATION_ERROR: () => documentedCall(gw, 'GET', '/v1/companies?limit=0'),
        UNKNOWN_QUERY_PARAMETER: () => documentedCall(gw, 'GET', '/v1/companies?limt=5'),
      },
    },
    runInstallationAction: {
      '400': {
        VALIDATION_ERROR: () => runV1('shop', 'published', 'list-orders', { actionArguments: {} }),
        APP_VERSION_INVALID: () => runV1('shop', 'latest', 'list-orders', { installationId }),
      },
      '401': { UNAUTHORIZED: () => runV1('shop', 'published', 'list-orders', { installationId }, 'not-a-token') },
      '403': { FORBIDDEN: () => runV1('shop', 'draft', 'list-orders', { installationId }) },
      '404': { NOT_FOUND: () => runV1('shop', 'published', 'list-orders', { installationId: 'ins_missing' }) },
      '429': {
        RATE_LIMITED: async () => {
          upstream.on('GET /api/orders', () => ({ status: 429, body: { error: 'slow down' } }));
          return runV1('shop', 'published', 'list-orders', { installationId });
        },
      },
      '502': {
        MAPPING_ERROR: async () => {
          upstream.on('GET /api/orders', () => ({ body: { result: { orders: [] } } }));
          return runV1('shop', 'published', 'broken', { installationId });
        },
        UPSTREAM_UNREACHABLE: () => runV1('down', 'published', 'ping', { installationId }),
      },
    },
  };

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, DOWN_APP);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'statuses-1' } })).body.data.userId;
    const shop = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, credentials: { apiKey: 'k' } } })).body.data.id;
    const down = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'down', endUserId } })).body.data.id;
    installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId: shop }, { appSlug: 'down', connectionId: down }] } })).body.data.id;
    token = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => upstream.reset());

  it('the run answers 429 with the envelope, as the document declares', async () => {
    upstream.on('GET /api/orders', () => ({ status: 429, body: { error: 'slow down' } }));
    const { status, body } = await runV1('shop', 'published', 'list-orders', { installationId });
    expect(status).to.equal(429);
    expect(body).to.deep.include({ success: false, data: [] });
    expect(body.meta.tooManyRequests).to.equal(true);
  });

  it('the run answers 502 with the envelope when the mapping fails, and with the error shape when the app is unreachable', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [] } } }));
    const mapping = await runV1('shop', 'published', 'broken', { installationId });
    expect(mapping.status).to.equal(502);
    expect(mapping.body.meta.error.code).to.equal('MAPPING_ERROR');
    const before = gw.logs().length;
    const unreachable = await runV1('down', 'published', 'ping', { installationId });
    expect(unreachable.status).to.equal(502);
    expect(unreachable.body.error.code).to.equal('UPSTREAM_UNREACHABLE');
    // An app that cannot be reached is the app's failure, not the gateway's: a warning naming the code, no error with a stack.
    const lines = gw.logs().slice(before).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.level >= 50)).to.deep.equal([]);
    const warned = lines.find((line) => line.msg === 'request failed: UPSTREAM_UNREACHABLE');
    expect(warned, JSON.stringify(lines)).to.include({ level: 40, code: 'UPSTREAM_UNREACHABLE' });
    expect(warned).to.not.have.property('err');
  });

  it("declares the run's statuses: 429 the envelope, 502 the envelope or the error shape, the others the error shape", () => {
    const responses = V1_DOCUMENT.paths[RUN].post.responses;
    expect(Object.keys(responses)).to.deep.equal(['200', '400', '401', '403', '404', '408', '409', '413', '415', '429', '431', '500', '502', '503', '504', 'default']);
    const schema = (status: string) => responses[status].content['application/json'].schema;
    expect(schema('429').required).to.deep.equal(['success', 'data', 'meta']);
    expect(schema('502').oneOf).to.have.length(2);
    expect(schema('503').properties.error.properties.code.enum).to.deep.equal(['AUTH_PROVIDER_UNAVAILABLE', 'UPSTREAM_BUSY', 'QUERY_TIMEOUT', 'STORE_UNAVAILABLE']);
    expect(responses['503'].headers['Retry-After'].description).to.equal('Seconds to wait before trying again: AUTH_PROVIDER_UNAVAILABLE when the provider sent one; UPSTREAM_BUSY always.');
    expect(schema('504').properties.error.properties.code.enum).to.deep.equal(['UPSTREAM_TIMEOUT']);
  });

  it('declares for every operation each status of each code it answers, the error shape limited to those codes', () => {
    const statuses = (path: string, method: string) => Object.keys(V1_DOCUMENT.paths[path][method].responses);
    expect(statuses('/v1/users', 'get')).to.deep.equal(['200', '400', '401', '408', '431', '500', '503', 'default']);
    expect(statuses('/v1/users', 'post')).to.deep.equal(['200', '400', '401', '408', '413', '415', '431', '500', '503', 'default']);
    expect(statuses('/v1/users/{userId}/token', 'get')).to.deep.equal(['200', '400', '401', '404', '408', '431', '500', '503', 'default']);
    expect(statuses('/v1/companies', 'get')).to.deep.equal(['200', '400', '401', '408', '431', '500', '503', 'default']);
  });

  it('shows examples that are real answers: each produced by the gateway and equal to what the document shows', async () => {
    const shown: string[] = [];
    for (const item of Object.values<any>(V1_DOCUMENT.paths)) {
      for (const op of Object.values<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          for (const [name, example] of Object.entries<any>(response.content?.['application/json']?.examples ?? {})) {
            shown.push(`${op.operationId} ${status} ${name}`);
            const produce = producers[op.operationId]?.[status]?.[name];
            expect(produce, `no producer for the example ${op.operationId} ${status} ${name}`).to.be.a('function');
            const answer = await produce!();
            expect(answer.status, `${op.operationId} ${status} ${name}`).to.equal(Number(status));
            expect(pinned(answer.body), `${op.operationId} ${status} ${name}`).to.deep.equal(example.value);
          }
        }
      }
    }
    const produced = Object.entries(producers).flatMap(([op, byStatus]) => Object.entries(byStatus).flatMap(([status, named]) => Object.keys(named).map((name) => `${op} ${status} ${name}`)));
    expect(shown.sort()).to.deep.equal(produced.sort());
  });
});
