import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { listing, record } from '../../../scripts/bench/records.ts';
import { BENCH_LISTING_ACTION } from '../../helpers/bench-listing-action.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

/** The row the mapping makes of record i. */
function row(i: number) {
  const r = record(i);
  return { id: r.id, name: `${r.first_name} ${r.last_name}`, email: r.email, createdAt: r.created_at, active: r.active, score: r.score };
}

describe('runs of big responses', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, BENCH_LISTING_ACTION);
    cleanupDefs = defs.cleanup;
    // The default mapping limits (MAPPING_TIMEOUT_MS 500): what a deployment runs with.
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-secret-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });

  it('10 concurrent runs of 10,000 records (1.9 MB each) all answer 200 with every row mapped', async () => {
    const text = JSON.stringify(listing(10_000));
    expect(text.length).to.be.greaterThan(1_800_000);
    upstream.on('GET /api/records', () => ({ body: text }));
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(gw, 'POST', '/v2/universal/apps/shop/actions/list-records/run', { body: { connectionId, arguments: {} } })),
    );
    for (const { status, body } of answers) {
      expect({ status, error: body.meta?.error }).to.deep.equal({ status: 200, error: undefined });
      expect(body.success).to.equal(true);
      expect(body.data).to.have.length(10_000);
      for (const i of [0, 1, 4_999, 9_999]) expect(body.data[i]).to.deep.equal(row(i + 1));
    }
  });
});
