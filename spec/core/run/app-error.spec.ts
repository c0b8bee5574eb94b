import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

function action(id: string, operation: string, rest: string): string {
  return `id: ${id}\nslug: ${id}\nname: ${id}\noperation: ${operation}\nmethod: GET\npath: /things\n${rest}`;
}

/**
 * Actions added to the shop fixture (API key auth, no API-level appError),
 * and an app of the spec's own, desk, whose api.yaml has a default appError
 * mapping over a Stripe-like error object.
 */
function files(upstreamUrl: string): Record<string, string> {
  const key = 'type: ApiKey\nid: key\nname: API key\nin: Header\nparameterName: X-Api-Key\nvalue: "{{apiKey}}"\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n';
  return {
    'shop/versions/1/actions/unmapped.yaml': action('unmapped', 'get', ''),
    'shop/versions/1/actions/ok-field.yaml': action('ok-field', 'get', 'response: |\n  { "success": body.ok = true, "data": body.ok ? [body.item] : [] }\n'),
    'shop/versions/1/actions/own-error.yaml': action(
      'own-error',
      'get',
      [
        'response: |',
        '  {',
        '    "success": body.ok = true,',
        '    "data": body.ok ? [body.item] : [],',
        '    "meta": { "appError": body.ok ? { "code": "never" } : { "status": 999, "code": body.error, "message": body.detail, "details": { "needed": body.needed } } }',
        '  }',
        '',
      ].join('\n'),
    ),
    'shop/versions/1/actions/odd-error.yaml': action('odd-error', 'get', 'response: |\n  { "success": false, "meta": { "appError": body } }\n'),
    'shop/versions/1/actions/broken-error.yaml': action('broken-error', 'get', 'response: |\n  { "success": false, "data": 1 + body.text }\n'),
    'desk/app.yaml': 'id: desk\nslug: desk\nname: Desk\npublished: 1\n',
    'desk/versions/1/api.yaml': [
      `baseUrl: ${upstreamUrl}/desk`,
      'auths:',
      '  - key',
      'retry:',
      '  delayMs: 10',
      '  maxAttempts: 2',
      'appError: |',
      '  $exists(body.boom) ? $error("the default mapping gave up") : {',
      '    "code": body.error.code,',
      '    "message": body.error.message,',
      '    "details": { "type": body.error.type, "declineCode": body.error.decline_code, "action": action.slug }',
      '  }',
      '',
    ].join('\n'),
    'desk/versions/1/auths/key.yaml': key,
    'desk/versions/1/actions/charge.yaml': action('charge', 'create', 'response: |\n  { "success": status = 200, "data": status = 200 ? [{ "id": body.id }] : [] }\n'),
    'desk/versions/1/actions/charge-coded.yaml': action(
      'charge-coded',
      'create',
      'response: |\n  { "success": status = 200, "data": [], "meta": { "appError": { "code": "card:" & body.error.decline_code } } }\n',
    ),
  };
}

describe('meta.appError: the app\'s own error, normalized, in the envelope of a failed app call', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let shop: string;
  let desk: string;
  const run = (app: string, connectionId: string, actionSlug: string) =>
    call(gw, 'POST', `/v2/universal/apps/${app}/actions/${actionSlug}/run`, { body: { connectionId, arguments: {} } });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, files(upstream.url));
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    shop = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-secret-key' } } })).body.data.id;
    desk = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'desk', credentials: { apiKey: 'desk-secret-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('without a mapping or an API default, a failed call gets the engine default: HTTP_<status> and the reason phrase', async () => {
    upstream.on('GET /api/things', () => ({ status: 500, headers: { 'content-type': 'text/html' }, body: '<h1>oops</h1>' }));
    const { status, body } = await run('shop', shop, 'unmapped');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.meta.appError).to.deep.equal({ status: 500, code: 'HTTP_500', message: 'Internal Server Error' });
    expect(body.meta).to.not.have.property('error');
  });

  it('a 401 is an app failure too: meta.authenticated false and meta.appError HTTP_401', async () => {
    upstream.on('GET /api/things', () => ({ status: 401, body: { message: 'Bad credentials' } }));
    const { body } = await run('shop', shop, 'unmapped');
    expect(body.success).to.equal(false);
    expect(body.meta.authenticated).to.equal(false);
    expect(body.meta.appError).to.deep.equal({ status: 401, code: 'HTTP_401', message: 'Unauthorized' });
  });

  it('a 2xx the mapping calls a failure gets APP_ERROR', async () => {
    upstream.on('GET /api/things', () => ({ body: { ok: false, error: 'channel_not_found' } }));
    const { status, body } = await run('shop', shop, 'ok-field');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.meta.appError).to.deep.equal({ status: 200, code: 'APP_ERROR', message: 'the app reported a failure (HTTP 200)' });
  });

  it("the mapping's meta.appError gives code, message and details; status is the engine's, whatever the mapping wrote", async () => {
    upstream.on('GET /api/things', () => ({ body: { ok: false, error: 'missing_scope', detail: 'The token lacks a scope', needed: 'chat:write' } }));
    const { body } = await run('shop', shop, 'own-error');
    expect(body.success).to.equal(false);
    expect(body.meta.appError).to.deep.equal({ status: 200, code: 'missing_scope', message: 'The token lacks a scope', details: { needed: 'chat:write' } });
  });

  it('a success has no meta.appError, even when the mapping wrote one', async () => {
    upstream.on('GET /api/things', () => ({ body: { ok: true, item: { id: 't1' } } }));
    const { body } = await run('shop', shop, 'own-error');
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 't1' }]);
    expect(body.meta).to.not.have.property('appError');
    const unmapped = await run('shop', shop, 'ok-field');
    expect(unmapped.body.meta).to.not.have.property('appError');
  });

  it('a mapping error is the gateway\'s: 502 with meta.error MAPPING_ERROR as before, and no meta.appError (the app\'s verdict is unknown)', async () => {
    upstream.on('GET /api/things', () => ({ status: 400, body: { text: 'not a number' } }));
    const { status, body } = await run('shop', shop, 'broken-error');
    expect(status).to.equal(502);
    expect(body.success).to.equal(false);
    expect(body.meta.error.code).to.equal('MAPPING_ERROR');
    expect(body.meta).to.not.have.property('appError');
  });

  it('odd values are normalized: numbers become strings, long strings are cut at 500 characters, details that are not an object or array, or are too big, are dropped', async () => {
    upstream.on('GET /api/things', () => ({ status: 409, body: { code: 4091, message: 'x'.repeat(2000), details: 'a string' } }));
    const first = await run('shop', shop, 'odd-error');
    expect(first.body.meta.appError).to.deep.equal({ status: 409, code: '4091', message: 'x'.repeat(500) });

    upstream.on('GET /api/things', () => ({ status: 409, body: { code: { nested: true }, message: null, details: { blob: 'y'.repeat(20_000) } } }));
    const second = await run('shop', shop, 'odd-error');
    expect(second.body.meta.appError).to.deep.equal({ status: 409, code: 'HTTP_409', message: 'Conflict' });

    upstream.on('GET /api/things', () => ({ status: 422, body: { code: '', message: true, details: [{ field: 'email' }] } }));
    const third = await run('shop', shop, 'odd-error');
    expect(third.body.meta.appError).to.deep.equal({ status: 422, code: 'HTTP_422', message: 'true', details: [{ field: 'email' }] });
  });

  it("a rate limit given up on (429) carries meta.appError with the app's last answer", async () => {
    upstream.on('GET /api/things', () => ({ status: 429, headers: { 'retry-after': '0' }, body: { error: 'slow down' } }));
    const { status, body } = await run('shop', shop, 'unmapped');
    expect(status).to.equal(429);
    expect(body.meta.tooManyRequests).to.equal(true);
    expect(body.meta.appError).to.deep.equal({ status: 429, code: 'HTTP_429', message: 'Too Many Requests' });
  });

  it("the API's default appError mapping fills code, message and details when the action's mapping gives none", async () => {
    upstream.on('GET /desk/things', () => ({
      status: 402,
      body: { error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' } },
    }));
    const { status, body } = await run('desk', desk, 'charge');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.meta.appError).to.deep.equal({
      status: 402,
      code: 'card_declined',
      message: 'Your card has insufficient funds.',
      details: { type: 'card_error', declineCode: 'insufficient_funds', action: 'charge' },
    });
  });

  it("the action's appError wins field by field over the API default", async () => {
    upstream.on('GET /desk/things', () => ({ status: 402, body: { error: { type: 'card_error', code: 'card_declined', decline_code: 'expired_card', message: 'Your card has expired.' } } }));
    const { body } = await run('desk', desk, 'charge-coded');
    expect(body.meta.appError).to.deep.equal({
      status: 402,
      code: 'card:expired_card',
      message: 'Your card has expired.',
      details: { type: 'card_error', declineCode: 'expired_card', action: 'charge-coded' },
    });
  });

  it('a default appError mapping that fails does not turn the failure into a 502: the engine default stands', async () => {
    upstream.on('GET /desk/things', () => ({ status: 400, body: { boom: true } }));
    const { status, body } = await run('desk', desk, 'charge');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.meta).to.not.have.property('error');
    expect(body.meta.appError).to.deep.equal({ status: 400, code: 'HTTP_400', message: 'Bad Request' });
    // The author hears of it: one warn naming the app, version and file, never the response body.
    const warn = gw.logs().split('\n').find((line) => line.includes('appError mapping failed'));
    expect(warn, 'a warn line for the failed appError mapping').to.be.a('string');
    const entry = JSON.parse(warn!);
    expect(entry.level).to.equal(40);
    expect(entry).to.include({ app: 'desk', version: '1', action: 'charge' });
    expect(entry.file).to.match(/desk\/versions\/1\/api\.yaml/);
    expect(entry.code).to.equal('MAPPING_ERROR');
  });

  it('the API default is not run on a success', async () => {
    upstream.on('GET /desk/things', () => ({ body: { id: 'ch_1', boom: true } }));
    const { body } = await run('desk', desk, 'charge');
    expect(body.success).to.equal(true);
    expect(body.meta).to.not.have.property('appError');
  });

  it('both OpenAPI documents describe meta.appError in the run envelope (status, code, message required; details optional)', async () => {
    for (const [doc, route] of [
      ['/v2/openapi.json', '/v2/universal/apps/{appSlug}/actions/{actionSlug}/run'],
      ['/v1/openapi.json', '/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run'],
    ] as const) {
      const document = (await call(gw, 'GET', doc)).body;
      const schema = document.paths[route].post.responses['200'].content['application/json'].schema;
      const appError = schema.properties.meta.properties.appError;
      expect(appError, doc).to.include({ type: 'object', additionalProperties: false });
      expect(appError.required, doc).to.deep.equal(['status', 'code', 'message']);
      expect(Object.keys(appError.properties), doc).to.deep.equal(['status', 'code', 'message', 'details']);
    }
  });
});
