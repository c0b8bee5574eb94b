import { expect } from 'chai';
import path from 'node:path';
import { SPLICE_FROM_CHARS } from '../../../engine/core/run/envelope-json.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, expectDocumentedIfDescribed } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const API_KEY = 'shop-secret-key';

describe('POST /v2/universal/apps/{appSlug}/actions/{actionSlug}/run', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (action: string, body: Record<string, unknown>, query = '') => documentedCall(gw, 'POST', `/v2/universal/apps/shop/actions/${action}/run${query}`, { body });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      MAPPING_TIMEOUT_MS: '300',
      OUTBOUND_HEADERS_TIMEOUT_MS: '500',
      OUTBOUND_MAX_RESPONSE_BYTES: '100000',
    });
    connectionId = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: API_KEY } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('runs a listing: the request carries the auth and arguments, the nested payload is unwrapped into data', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o1' }, { id: 'o2' }], next: null } } }));
    const { status, body } = await run('list-orders', { connectionId, arguments: { status: 'open' } });
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 'o1' }, { id: 'o2' }]);
    expect(body.meta).to.include({ retries: 0 });
    expect(body.meta).not.to.have.property('cursor');
    expect(body.meta.action).to.deep.equal({ id: 'list-orders', slug: 'list-orders', operation: 'list', query: { status: 'open' }, body: null });
    expect(body.meta.response.status).to.equal(200);
    const [sent] = upstream.calls('GET /api/orders');
    expect(sent!.headers['x-api-key']).to.equal(API_KEY);
    expect(sent!.headers.accept).to.equal('application/json');
    expect(sent!.query.get('status')).to.equal('open');
    expect(JSON.stringify(body)).not.to.include(API_KEY);
    expect(gw.logs()).not.to.include(API_KEY);
  });

  it("keeps an app's `__proto__` member in the rows a mapping selects, as a member of the row", async () => {
    const orders = '[{"id":"o1","__proto__":{"status":"refunded","id":"evil"}},{"id":"o2","__proto__":"text"}]';
    upstream.on('GET /api/orders', () => ({ body: `{"result":{"orders":${orders},"next":null}}` }));
    const response = await fetch(`${gw.url}/v2/universal/apps/shop/actions/list-orders/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ connectionId, arguments: {} }),
    });
    expect(response.status).to.equal(200);
    const text = await response.text();
    expect(text).to.include(`"data":${orders}`);
    expect(JSON.parse(text).data[0]).to.have.own.property('__proto__');
  });

  it("answers JSON: meta.response.body is the app's JSON text as it came, the rest as JSON.stringify writes it", async () => {
    const send = async () => {
      const response = await fetch(`${gw.url}/v2/universal/apps/shop/actions/get-order/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ connectionId, arguments: { orderId: 'o1' } }),
      });
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      const text = await response.text();
      expectDocumentedIfDescribed('POST', '/v2/universal/apps/shop/actions/get-order/run', { status: response.status, body: JSON.parse(text) });
      return text;
    };
    upstream.on('GET /api/orders/o1', () => ({ body: { id: 'o1', total: 5 } }));
    const compact = await send();
    expect(compact).to.equal(JSON.stringify(JSON.parse(compact)));
    expect(JSON.parse(compact).meta.response.body).to.deep.equal({ id: 'o1', total: 5 });

    const text = `{ "id": "o1",\n  "total": 12345678901234567890, "note": "${'x'.repeat(SPLICE_FROM_CHARS)}" }`;
    upstream.on('GET /api/orders/o1', () => ({ body: text }));
    const spliced = await send();
    const envelope = JSON.parse(spliced);
    expect(envelope.data).to.deep.equal([{ id: 'o1', total: 12345678901234567890, note: 'x'.repeat(SPLICE_FROM_CHARS) }]);
    expect(spliced).to.include('"total": 12345678901234567890,');
    expect(spliced).to.equal(JSON.stringify({ ...envelope, meta: { ...envelope.meta, response: { ...envelope.meta.response, body: '__BODY__' } } }).replace('"__BODY__"', text));
  });

  it("answers valid UTF-8 whatever bytes the app's JSON came in: its UTF-8 bytes as they are, a latin1 or byte-order-marked body as its text", async () => {
    const note = `Zoë 東京 ${'x'.repeat(SPLICE_FROM_CHARS)}`;
    const send = async () => {
      const response = await fetch(`${gw.url}/v2/universal/apps/shop/actions/get-order/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ connectionId, arguments: { orderId: 'o1' } }),
      });
      expect(response.status).to.equal(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      // fatal: an invalid sequence throws instead of being replaced
      return { bytes, envelope: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
    };
    const utf8 = Buffer.from(`{ "id": "o1",   "note": "${note}" }`, 'utf8');
    upstream.on('GET /api/orders/o1', () => ({ body: utf8 }));
    const asSent = await send();
    expect(asSent.bytes.includes(utf8)).to.equal(true);
    expect(asSent.envelope.meta.response.body).to.deep.equal({ id: 'o1', note });

    const latin = `{ "id": "o1", "note": "Zoë ${'x'.repeat(SPLICE_FROM_CHARS)}" }`;
    upstream.on('GET /api/orders/o1', () => ({ body: Buffer.from(latin, 'latin1'), headers: { 'content-type': 'application/json; charset=iso-8859-1' } }));
    expect((await send()).envelope.meta.response.body).to.deep.equal(JSON.parse(latin));

    upstream.on('GET /api/orders/o1', () => ({ body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]) }));
    const marked = await send();
    expect(marked.bytes.includes(Buffer.from([0xef, 0xbb, 0xbf]))).to.equal(false);
    expect(marked.envelope.meta.response.body).to.deep.equal({ id: 'o1', note });
  });

  it("never serves a connection it has just run to another company, nor after it was deleted", async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [], next: null } } }));
    const id = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: API_KEY } } })).body.data.id;
    for (let i = 0; i < 2; i++) expect((await run('list-orders', { connectionId: id })).status).to.equal(200);
    const other = await otherTenant(gw.gateway.services.store, 'Cache Co');
    const theirs = await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'POST', '/v2/universal/apps/shop/actions/list-orders/run', { body: { connectionId: id } });
    expect(theirs.status).to.equal(404);
    expect((await documentedCall(gw, 'DELETE', `/v2/connections/${id}`)).status).to.equal(200);
    const gone = await run('list-orders', { connectionId: id });
    expect(gone.status).to.equal(404);
    expect(gone.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${id} does not exist` });
  });

  it('wraps an object in an array', async () => {
    upstream.on('GET /api/orders/o%201', () => ({ body: { id: 'o 1', total: 5 } }));
    const { body } = await run('get-order', { connectionId, arguments: { orderId: 'o 1' } });
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 'o 1', total: 5 }]);
  });

  it('answers a 404 on a listing as success with no data', async () => {
    upstream.on('GET /api/customers', () => ({ status: 404, body: { message: 'no customers yet' } }));
    const { status, body } = await run('list-customers', { connectionId });
    expect(status).to.equal(200);
    expect(body).to.deep.include({ success: true, data: [] });
    expect(body.meta.response).to.deep.equal({ status: 404, headers: body.meta.response.headers, body: { message: 'no customers yet' } });
  });

  it('answers a delete without a body with the deleted id, and keeps the id a body carries', async () => {
    upstream.on('DELETE /api/orders/o9', () => ({ status: 204 }));
    const empty = await run('delete-order', { connectionId, arguments: { orderId: 'o9' } });
    expect(empty.body).to.deep.include({ success: true, data: [{ id: 'o9' }] });
    upstream.on('DELETE /api/orders/o8', () => ({ status: 200, body: { id: 'o8', deleted: true } }));
    const withBody = await run('delete-order', { connectionId, arguments: { orderId: 'o8' } });
    expect(withBody.body.data).to.deep.equal([{ id: 'o8', deleted: true }]);
  });

  it('pages with meta.cursor sent back as the cursor argument, over three pages', async () => {
    const pages: Record<string, { orders: { id: string }[]; next: string | null }> = {
      '': { orders: [{ id: 'a' }], next: 'p2' },
      p2: { orders: [{ id: 'b' }], next: 'p3' },
      p3: { orders: [{ id: 'c' }], next: null },
    };
    upstream.on('GET /api/orders', (req) => ({ body: { result: pages[req.query.get('page_cursor') ?? '']! } }));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const { body } = await run('list-orders', { connectionId, arguments: cursor ? { cursor } : {} });
      seen.push(...body.data.map((o: { id: string }) => o.id));
      cursor = body.meta.cursor;
    }
    expect(seen).to.deep.equal(['a', 'b', 'c']);
    expect(cursor).to.equal(undefined);
    expect(upstream.calls('GET /api/orders').map((r) => r.query.get('page_cursor'))).to.deep.equal([null, 'p2', 'p3']);
  });

  it('retries a 429 after its Retry-After, then succeeds (meta.retries 1)', async () => {
    let calls = 0;
    upstream.on('GET /api/orders', () => (++calls === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: {} } : { body: { result: { orders: [{ id: 'x' }] } } }));
    const started = Date.now();
    const { status, body } = await run('list-orders', { connectionId });
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.meta.retries).to.equal(1);
    expect(Date.now() - started).to.be.at.least(900);
  });

  it('retries a rate limit the app signals in its body (meta.tooManyRequests from the mapping)', async () => {
    let calls = 0;
    upstream.on('GET /api/busy', () => (++calls < 3 ? { body: { error: 'slow down' } } : { body: { items: [1, 2] } }));
    const { body } = await run('list-busy', { connectionId });
    expect(body).to.deep.include({ success: true, data: [1, 2] });
    expect(body.meta.retries).to.equal(2);
  });

  it('gives up after the maximum attempts: success false, meta.tooManyRequests true, HTTP 429', async () => {
    upstream.on('GET /api/orders', () => ({ status: 429, body: { error: 'rate limited' } }));
    const { status, body } = await run('list-orders', { connectionId });
    expect(status).to.equal(429);
    expect(body.success).to.equal(false);
    expect(body.meta).to.include({ tooManyRequests: true, retries: 2 });
    expect(upstream.calls('GET /api/orders')).to.have.length(3);
  });

  it('keeps meta.action, meta.response and meta.retries the engine set, whatever the mapping wrote', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [] } } }));
    const { body } = await run('sneaky', { connectionId });
    expect(body.meta.action.id).to.equal('sneaky');
    expect(body.meta.retries).to.equal(0);
    expect(body.meta.response.status).to.equal(200);
    expect(body.meta.note).to.equal('kept');
  });

  it('stops a mapping that never ends: success false with MAPPING_ERROR naming the file and line (502)', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [] } } }));
    const { status, body } = await run('spin', { connectionId });
    expect(status).to.equal(502);
    expect(body.success).to.equal(false);
    expect(body.data).to.deep.equal([]);
    expect(body.meta.error.code).to.equal('MAPPING_ERROR');
    expect(body.meta.error.message).to.match(/^shop\/versions\/1\/actions\/spin\.yaml:\d+:\d+: the mapping was stopped after 300 ms \(MAPPING_TIMEOUT_MS\)/);
  });

  it('answers UPSTREAM_TIMEOUT (504) for a slow app, and RESPONSE_TOO_LARGE (502) past the size limit', async () => {
    upstream.on('GET /api/slow', () => ({ delayMs: 2000, body: [] }));
    const slow = await run('slow', { connectionId });
    expect(slow.status).to.equal(504);
    expect(slow.body.error.code).to.equal('UPSTREAM_TIMEOUT');
    expect(slow.body.error.message).to.include('127.0.0.1');
    upstream.on('GET /api/big', () => ({ body: [{ blob: 'x'.repeat(200_000) }] }));
    const big = await run('big', { connectionId });
    expect(big.status).to.equal(502);
    expect(big.body.error.code).to.equal('RESPONSE_TOO_LARGE');
  });

  it('refuses arguments that break their definitions with 400 VALIDATION_ERROR, sending nothing', async () => {
    const { status, body } = await run('list-orders', { connectionId, arguments: { status: 'lost', colour: 'red' } });
    expect(status).to.equal(400);
    expect(body.error.code).to.equal('VALIDATION_ERROR');
    expect(body.error.message).to.include('status');
    expect(body.error.message).to.include('colour');
    expect(upstream.received).to.have.length(0);
  });

  it('needs exactly one of connectionId and installationId', async () => {
    const none = await run('list-orders', {});
    expect(none.status).to.equal(400);
    expect(none.body.error.code).to.equal('CONNECTION_REQUIRED');
    const both = await run('list-orders', { connectionId, installationId: 'ins_x' });
    expect(both.status).to.equal(400);
    expect(both.body.error).to.deep.equal({ code: 'CONNECTION_SELECTOR_CONFLICT', message: 'send connectionId or installationId, not both' });
  });

  it('answers 404 for an unknown app or action, and for another company\'s connection or installation', async () => {
    expect((await documentedCall(gw, 'POST', '/v2/universal/apps/nope/actions/x/run', { body: { connectionId } })).body.error.code).to.equal('APP_NOT_FOUND');
    expect((await run('nope', { connectionId })).body.error.code).to.equal('ACTION_NOT_FOUND');
    const other = await otherTenant(gw.gateway.services.store);
    const theirs = { url: gw.url, apiKey: other.apiKey };
    const viaConnection = await documentedCall(theirs, 'POST', '/v2/universal/apps/shop/actions/list-orders/run', { body: { connectionId } });
    expect(viaConnection.status).to.equal(404);
    expect(viaConnection.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${connectionId} does not exist` });
    const endUserId = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'shopper' } })).body.data.userId;
    const installationId = (await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId }] } })).body.data.id;
    const viaInstallation = await documentedCall(theirs, 'POST', '/v2/universal/apps/shop/actions/list-orders/run', { body: { installationId } });
    expect(viaInstallation.status).to.equal(404);
    expect(viaInstallation.body.error.message).to.equal(`installation ${installationId} does not exist`);
    expect(upstream.received).to.have.length(0);
  });

  it('runs through an installation, and refuses a connection to another app', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'i1' }] } } }));
    const endUserId = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'installer' } })).body.data.userId;
    const installationId = (await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId }] } })).body.data.id;
    const { body } = await run('list-orders', { installationId });
    expect(body.data).to.deep.equal([{ id: 'i1' }]);
    const crm = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'crm', credentials: { accessToken: 't' } } })).body.data.id;
    const mismatch = await run('list-orders', { connectionId: crm });
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body.error).to.deep.equal({ code: 'CONNECTION_APP_MISMATCH', message: `connection ${crm} is to app "crm", not "shop"` });
  });

  it('answers Lookup options by running the lookup action; a run sends its value as given, without the lookup', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o1', label: 'First order' }, { id: 'o2', label: 'Second order' }] } } }));
    const options = await documentedCall(gw, 'POST', '/v2/universal/apps/shop/actions/refund-order/arguments/orderId/options', { body: { connectionId } });
    expect(options.status).to.equal(200);
    expect(options.body.data).to.deep.equal([
      { value: 'o1', label: 'First order' },
      { value: 'o2', label: 'Second order' },
    ]);
    upstream.on('POST /api/refunds', (req) => ({ status: 201, body: { refunded: JSON.parse(req.body).order_id } }));
    const refunded = await run('refund-order', { connectionId, arguments: { orderId: 'o2' } });
    expect(refunded.body).to.deep.include({ success: true, data: [{ refunded: 'o2' }] });
    const later = await run('refund-order', { connectionId, arguments: { orderId: 'o9' } });
    expect(later.body).to.deep.include({ success: true, data: [{ refunded: 'o9' }] });
    expect(upstream.calls('POST /api/refunds')).to.have.length(2);
    expect(upstream.calls('GET /api/orders'), 'only the options endpoint ran the lookup').to.have.length(1);
  });

  it('answers CREDENTIALS_UNREADABLE naming the connection when no configured key opens its credentials', async () => {
    const { seal } = await import('../../../engine/platform/crypto/cipher.ts');
    const { createKeyring } = await import('../../../engine/platform/crypto/keyring.ts');
    const { randomBytes } = await import('node:crypto');
    const broken = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'k' } } })).body.data.id;
    const foreignKey = createKeyring([randomBytes(32).toString('base64')]);
    await gw.gateway.services.store.connections.updateOne({ id: broken }, { $set: { credentials: seal(foreignKey, broken, { arguments: { apiKey: 'k' } }) } });
    const { status, body } = await run('list-orders', { connectionId: broken });
    expect(status).to.equal(500);
    expect(body.error.code).to.equal('CREDENTIALS_UNREADABLE');
    expect(body.error.message).to.match(new RegExp(`^the stored credentials of ${broken} cannot be decrypted: encrypted with key [0-9a-f]{16}, which is not among the configured ENCRYPTION_KEY values$`));
    expect(upstream.received).to.have.length(0);
  });

  it('stops a run whose caller hangs up, and logs it as the caller leaving, not as a failure', async () => {
    upstream.on('GET /api/slow', () => ({ delayMs: 400, body: [] }));
    const controller = new AbortController();
    const pending = fetch(`${gw.url}/v2/universal/apps/shop/actions/slow/run`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.apiKey}`, 'Content-Type': 'application/json', 'X-Request-Id': 'hang-up-1' },
      body: JSON.stringify({ connectionId }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 150));
    controller.abort();
    expect(await pending).to.equal('aborted');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = gw.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.reqId === 'hang-up-1');
    expect(lines.map((l) => l.msg)).to.include('the caller went away before the answer');
    expect(lines.some((l) => l.level >= 50)).to.equal(false);
  });
});
