import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

function action(id: string, operation: string, rest: string): string {
  return `id: ${id}\nslug: ${id}\nname: ${id}\noperation: ${operation}\nmethod: GET\npath: /things\n${rest}`;
}

/** Actions added to the shop fixture (API key auth: a 401 cannot be renewed, so the envelope answers it). */
const ACTIONS: Record<string, string> = {
  'shop/versions/1/actions/unmapped.yaml': action('unmapped', 'get', ''),
  'shop/versions/1/actions/flags-from-body.yaml': action(
    'flags-from-body',
    'get',
    'response: |\n  { "success": body.success, "data": [], "meta": { "authenticated": body.authenticated, "tooManyRequests": body.tooManyRequests } }\n',
  ),
  'shop/versions/1/actions/copy-all.yaml': action('copy-all', 'get', 'response: |\n  { "success": status = 200, "data": [body] }\n'),
  'shop/versions/1/actions/create-thing.yaml': action('create-thing', 'create', 'response: |\n  { "success": status = 200, "data": [{ "id": body.id, "name": body.name }] }\n'),
  'shop/versions/1/actions/explain-failure.yaml': action(
    'explain-failure',
    'create',
    'response: |\n  { "success": status = 200, "data": status = 200 ? [{ "id": body.id }] : [{ "error": body.error.message }] }\n',
  ),
};

describe('envelope flags are booleans, and failures carry no phantom rows', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (actionSlug: string) => call(gw, 'POST', `/v2/universal/apps/shop/actions/${actionSlug}/run`, { body: { connectionId, arguments: {} } });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, ACTIONS);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-secret-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('a mapping\'s "maybe", "no", "false" or 1 at success, meta.authenticated or meta.tooManyRequests is not said: the status decides, and the client sees booleans or nothing', async () => {
    for (const odd of ['maybe', 'no', 'false', 'true', 1, 0, {}, []]) {
      upstream.on('GET /api/things', () => ({ body: { success: odd, authenticated: odd, tooManyRequests: odd } }));
      const { status, body } = await run('flags-from-body');
      expect(status, JSON.stringify(odd)).to.equal(200);
      expect(body.success, JSON.stringify(odd)).to.equal(true);
      expect(body.meta, JSON.stringify(odd)).to.not.have.any.keys('authenticated', 'tooManyRequests');
    }
    upstream.on('GET /api/things', () => ({ status: 401, body: { success: 'no', authenticated: 'maybe', tooManyRequests: 'no' } }));
    const { body } = await run('flags-from-body');
    expect(body.success).to.equal(false);
    expect(body.meta.authenticated).to.equal(false);
    expect(body.meta).to.not.have.property('tooManyRequests');
  });

  it("a mapping's true and false stand as given", async () => {
    upstream.on('GET /api/things', () => ({ body: { success: false, authenticated: true, tooManyRequests: false } }));
    const { status, body } = await run('flags-from-body');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.meta).to.include({ authenticated: true, tooManyRequests: false });
    upstream.on('GET /api/things', () => ({ status: 401, body: { success: true, authenticated: true } }));
    const second = await run('flags-from-body');
    expect(second.body.success).to.equal(true);
    expect(second.body.meta.authenticated).to.equal(true);
  });

  it('an answer nested thousands of levels deep (10 KB of [[[...]]]) that the run cannot map or write back is 502 UPSTREAM_PROTOCOL_ERROR saying so, never a 500', async () => {
    const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;
    // Unmapped (the answer is the data), and mapped whole on this thread: each runs out of call stack writing the envelope.
    for (const [actionSlug, padded] of [['unmapped', deep], ['copy-all', deep]] as const) {
      upstream.on('GET /api/things', () => ({ headers: { 'content-type': 'application/json' }, body: padded }));
      // Raw: the test helpers' own checks would run out of call stack on such an answer.
      const response = await fetch(`${gw.url}/v2/universal/apps/shop/actions/${actionSlug}/run`, { method: 'POST', headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ connectionId, arguments: {} }) });
      const text = await response.text();
      const { status } = response;
      expect(status, `${actionSlug} ${padded.length}: ${text.slice(0, 300)}`).to.equal(502);
      const body = JSON.parse(text);
      expect(body.error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
      expect(body.error.message).to.match(/nests JSON more than 1000 levels deep/);
    }
    // Mapped whole from a large answer (a mapping worker writes the rows as text): answered as any other, not a 500.
    upstream.on('GET /api/things', () => ({ headers: { 'content-type': 'application/json' }, body: `{"pad":"${'p'.repeat(300_000)}","id":${deep}}` }));
    const viaWorker = await fetch(`${gw.url}/v2/universal/apps/shop/actions/copy-all/run`, { method: 'POST', headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ connectionId, arguments: {} }) });
    expect(viaWorker.status).to.be.oneOf([200, 502]);
  });

  it('an unmapped upstream 500 HTML page is success: false with data: [], the page only in meta.response.body', async () => {
    upstream.on('GET /api/things', () => ({ status: 500, headers: { 'content-type': 'text/html' }, body: '<h1>oops</h1>' }));
    const { status, body } = await run('unmapped');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.data).to.deep.equal([]);
    expect(body.meta.response).to.include({ status: 500, body: '<h1>oops</h1>' });
    expect(body.meta).to.not.have.property('authenticated');
  });

  it('an unmapped 2xx body is still the data as it is', async () => {
    upstream.on('GET /api/things', () => ({ body: { id: 't1' } }));
    const { body } = await run('unmapped');
    expect(body).to.deep.include({ success: true, data: [{ id: 't1' }] });
  });

  it('an unmapped upstream 401 is success: false, data: [], meta.authenticated: false', async () => {
    upstream.on('GET /api/things', () => ({ status: 401, body: { message: 'Bad credentials' } }));
    const { status, body } = await run('unmapped');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.data).to.deep.equal([]);
    expect(body.meta.authenticated).to.equal(false);
  });

  it('a failure whose row mapping found none of its fields (an error body) has data: [], not [{}]', async () => {
    upstream.on('GET /api/things', () => ({ status: 400, body: { error: { type: 'invalid_request_error', message: 'Invalid email address: nope' } } }));
    const { status, body } = await run('create-thing');
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.data).to.deep.equal([]);
  });

  it('a failure keeps the rows its mapping deliberately returned', async () => {
    upstream.on('GET /api/things', () => ({ status: 400, body: { error: { type: 'invalid_request_error', message: 'Invalid email address: nope' } } }));
    const { body } = await run('explain-failure');
    expect(body.success).to.equal(false);
    expect(body.data).to.deep.equal([{ error: 'Invalid email address: nope' }]);
  });
});
