import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream, type Reply } from '../../helpers/upstream.ts';
import { listing } from '../../../scripts/bench/records.ts';
import { BENCH_LISTING_ACTION } from '../../helpers/bench-listing-action.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const SECRET = 'shop-secret-key';

const ACTIONS: Record<string, string> = {
  ...BENCH_LISTING_ACTION,
  'shop/versions/1/actions/list-refused.yaml': [
    'id: list-refused',
    'slug: list-refused',
    'name: List, refused by its mapping',
    'operation: list',
    'method: GET',
    'path: /records',
    'response: |',
    '  { "data": body.data.records[0].active ? $error("the first record is active") : [] }',
    '',
  ].join('\n'),
  'shop/versions/1/actions/list-raw.yaml': ['id: list-raw', 'slug: list-raw', 'name: List, as the app answers', 'operation: list', 'method: GET', 'path: /raw', ''].join('\n'),
};

/** The answer as it came: status and the body's bytes as text. */
async function run(gw: TestGateway, connectionId: string, action: string, args: Record<string, unknown> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`${gw.url}/v2/universal/apps/shop/actions/${action}/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${gw.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ connectionId, arguments: args }),
  });
  return { status: response.status, text: await response.text() };
}

/** The times JSON.parse was given a text of `length` characters in this thread (the main thread: a worker has its own JSON). */
async function parsesOf(length: number, body: () => Promise<unknown>): Promise<number> {
  const parse = JSON.parse;
  let count = 0;
  JSON.parse = function (this: unknown, text: string, ...rest: unknown[]) {
    if (typeof text === 'string' && text.length === length) count++;
    return (parse as (...args: unknown[]) => unknown).call(this, text, ...rest);
  } as typeof JSON.parse;
  try {
    await body();
  } finally {
    JSON.parse = parse;
  }
  return count;
}

describe('mapping workers: a run answers the same bytes whether its response is mapped on the main thread or in a worker', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let here: TestGateway;
  let there: TestGateway;
  const connections = new Map<TestGateway, string>();
  let cleanupDefs: () => Promise<void>;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, ACTIONS);
    cleanupDefs = defs.cleanup;
    here = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', MAPPING_WORKERS: '0' });
    // Every response mapped in the worker, however small.
    there = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', MAPPING_WORKERS: '1', MAPPING_WORKER_FROM_BYTES: '1' });
    for (const gw of [here, there]) connections.set(gw, (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: SECRET } } })).body.data.id);
  });
  after(async () => {
    await Promise.all([here.stop(), there.stop()]);
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  /** Both gateways' answers to the same reply: equal status and bytes. */
  async function same(route: string, action: string, reply: Reply, args: Record<string, unknown> = {}): Promise<{ status: number; text: string }> {
    upstream.on(route, () => reply);
    const a = await run(here, connections.get(here)!, action, args);
    const b = await run(there, connections.get(there)!, action, args);
    // The upstream's Date header may differ between the two calls; nothing else may.
    const comparable = (text: string) => text.replace(/"date":"[^"]*"/, '"date":"DATE"');
    expect({ status: b.status, text: comparable(b.text) }).to.deep.equal({ status: a.status, text: comparable(a.text) });
    return b;
  }

  it('a listing of 2,000 records: the same answer, and the main thread never parses the app’s body', async () => {
    const text = JSON.stringify(listing(2000));
    upstream.on('GET /api/records', () => ({ body: text }));
    expect(await parsesOf(text.length, () => run(here, connections.get(here)!, 'list-records')), 'mapped here: parsed here').to.equal(1);
    expect(await parsesOf(text.length, () => run(there, connections.get(there)!, 'list-records')), 'mapped in the worker: not parsed here').to.equal(0);
    const answer = await same('GET /api/records', 'list-records', { body: text });
    const envelope = JSON.parse(answer.text);
    expect(envelope.data).to.have.length(2000);
    expect(envelope.meta.response.body).to.deep.equal(JSON.parse(text));
  });

  it('an action without a response mapping: the same answer for an array, an object, null, text and a 404, and the main thread never parses a large body', async () => {
    const rows = JSON.stringify(listing(2000).data.records);
    upstream.on('GET /api/raw', () => ({ body: rows }));
    expect(await parsesOf(rows.length, () => run(there, connections.get(there)!, 'list-raw')), 'in the worker: not parsed here').to.equal(0);
    const answer = await same('GET /api/raw', 'list-raw', { body: rows });
    expect(JSON.parse(answer.text).data).to.have.length(2000);
    const object = JSON.parse((await same('GET /api/raw', 'list-raw', { body: listing(3) })).text);
    expect(object.data).to.deep.equal([listing(3)]);
    expect(JSON.parse((await same('GET /api/raw', 'list-raw', { body: 'null' })).text).data).to.deep.equal([]);
    await same('GET /api/raw', 'list-raw', { body: 'not json at all', headers: { 'content-type': 'text/plain' } });
    await same('GET /api/raw', 'list-raw', { status: 404, body: { error: 'none' } });
    const secret = JSON.parse((await same('GET /api/raw', 'list-raw', { body: [{ key: SECRET }] })).text);
    expect(secret.data).to.deep.equal([{ key: '[redacted]' }]);
  });

  it('a large JSON body in another charset (ISO-8859-1): the same answer, its text intact, and the main thread never parses it', async () => {
    const records = listing(2000);
    for (const record of records.data.records) record.first_name = `Café Ñandú ${record.id}`;
    const text = JSON.stringify(records);
    const latin1 = { body: Buffer.from(text, 'latin1'), headers: { 'content-type': 'application/json; charset=iso-8859-1' } };
    upstream.on('GET /api/records', () => latin1);
    expect(await parsesOf(text.length, () => run(there, connections.get(there)!, 'list-records')), 'mapped in the worker: not parsed here').to.equal(0);
    upstream.on('GET /api/raw', () => latin1);
    expect(await parsesOf(text.length, () => run(there, connections.get(there)!, 'list-raw')), 'no mapping, in the worker: not parsed here').to.equal(0);
    const mapped = JSON.parse((await same('GET /api/records', 'list-records', latin1)).text);
    expect(mapped.data).to.have.length(2000);
    expect(mapped.meta.response.body).to.deep.equal(records);
    const raw = JSON.parse((await same('GET /api/raw', 'list-raw', latin1)).text);
    expect(raw.data).to.deep.equal([records]);
  });

  it('a body holding the connection’s key: redacted alike, in the rows and in meta.response.body', async () => {
    const records = listing(50);
    records.data.records[3]!.email = `leaked ${SECRET}`;
    const answer = await same('GET /api/records', 'list-records', { body: records });
    expect(answer.text).to.not.include(SECRET);
    expect(answer.text).to.include('[redacted]');
  });

  it('a failure whose rows include empty objects: the same success false, without them', async () => {
    const body = { data: { records: [{}, { id: 'a' }, {}] }, next: null };
    const answer = await same('GET /api/records', 'list-records', { status: 500, body });
    expect(JSON.parse(answer.text)).to.deep.include({ success: false });
  });

  it('a body declared JSON that is not, a 404 on a listing, an empty body: alike', async () => {
    await same('GET /api/records', 'list-records', { body: '<html>not json</html>'.repeat(10) });
    await same('GET /api/records', 'list-records', { status: 404, body: { error: 'gone' } });
    await same('GET /api/records', 'list-records', { status: 200, body: '' });
  });

  it('a delete: the deleted id merged into its rows alike', async () => {
    const answer = await same('DELETE /api/orders/o1', 'delete-order', { body: [{ deleted: true }, { id: 'kept', deleted: true }] }, { orderId: 'o1' });
    expect(JSON.parse(answer.text).data).to.deep.equal([{ id: 'o1', deleted: true }, { id: 'kept', deleted: true }]);
  });

  it('a mapping that fails: the same 502 MAPPING_ERROR naming its file and line', async () => {
    const answer = await same('GET /api/records', 'list-refused', { body: listing(20) });
    expect(answer.status).to.equal(502);
    const error = JSON.parse(answer.text).meta.error;
    expect(error).to.include({ code: 'MAPPING_ERROR' });
    expect(error.message).to.match(/list-refused\.yaml:8:\d+: .*the first record is active/);
  });
});
