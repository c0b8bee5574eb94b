import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import { Kysely } from 'kysely';
import { migrateToLatest } from '../../../engine/platform/store/sql/migrate.ts';
import { analyzeInBackground, staleStatistics } from '../../../engine/platform/store/sql/pglite-analyze.ts';
import { pgliteDialect } from '../../../engine/platform/store/sql/pglite-dialect.ts';
import { sqlStore } from '../../../engine/platform/store/sql/sql-store.ts';
import type { EndUserRecord } from '../../../engine/platform/store/index.ts';

/**
 * PGlite has no autovacuum: the embedded store analyzes a table itself when
 * it never was, or when more than 50 rows + 10% of it were written since,
 * so a list is planned with statistics (pglite-analyze.ts). Before, a
 * DATA_DIR was never analyzed and `metadata.region==us` at 200,000 end
 * users was planned as a bitmap scan of the company and a sort (1.5 s).
 */
describe('the embedded store keeps its planner statistics current (PGlite has no autovacuum)', function () {
  this.timeout(60_000);
  let pg: PGlite;
  let db: Kysely<any>;

  beforeEach(async () => {
    pg = await PGlite.create();
    db = new Kysely<any>({ dialect: pgliteDialect(() => pg) });
    await migrateToLatest(db);
  });
  afterEach(async () => {
    await db.destroy();
    await pg.close();
  });

  const estimate = async (table: string) => Number((await pg.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = $1`, [table])).rows[0]!.reltuples);
  const endUser = (i: number): EndUserRecord =>
    ({ id: `eu_${i}`, companyId: 'cmp_1', externalId: `x${i}`, externalKey: `cmp_1:x${i}`, name: null, email: `u${i}@example.test`, isTestUser: false, metadata: { region: ['eu', 'us'][i % 2] }, createdOn: new Date(1e12 + i), updatedOn: new Date(1e12 + i) }) as EndUserRecord;

  it('analyzes every table never analyzed, then a table only once more than 50 rows + 10% were written to it', async () => {
    const store = sqlStore(db, { kind: 'embedded', queryTimeoutMs: 30_000, soleWriter: true, close: async () => {} });
    const analyze = staleStatistics(db, store);
    expect(await estimate('end_users')).to.equal(-1);
    const first = await analyze();
    expect(first).to.include.members(['end_users', 'connections', 'installations', 'companies']);
    expect(await estimate('end_users')).to.equal(0);
    expect(await analyze()).to.deep.equal([]);

    for (let i = 0; i < 50; i++) await store.endUsers.insert(endUser(i));
    expect(await analyze(), '50 writes: not yet').to.deep.equal([]);
    await store.endUsers.insert(endUser(50));
    expect(await analyze()).to.deep.equal(['end_users']);
    expect(await estimate('end_users')).to.equal(51);
    const stats = await pg.query<{ attname: string }>(`SELECT attname FROM pg_stats WHERE tablename = 'end_users' ORDER BY attname`);
    expect(stats.rows.map((r) => r.attname)).to.include.members(['created_on', 'metadata', 'company_id']);
    expect(await analyze()).to.deep.equal([]);

    // 51 rows now: the next analyze after 50 + 5.1 writes.
    for (let i = 51; i < 106; i++) await store.endUsers.insert(endUser(i));
    expect(await analyze()).to.deep.equal([]);
    await store.endUsers.updateOne({ id: 'eu_0' }, { $set: { name: 'Ada' } });
    expect(await analyze()).to.deep.equal(['end_users']);
    expect(await estimate('end_users')).to.equal(106);
  });

  it('runs in the background after the store opens, and stops with it', async () => {
    const store = sqlStore(db, { kind: 'embedded', queryTimeoutMs: 30_000, soleWriter: true, close: async () => {} });
    let rounds = 0;
    const analyze = staleStatistics(db, store);
    const background = analyzeInBackground(async () => {
      rounds++;
      return await analyze();
    }, 10, 20);
    while (rounds < 3) await new Promise((r) => setTimeout(r, 10));
    await background.stop();
    expect(await estimate('end_users')).to.equal(0);
    const after = rounds;
    await new Promise((r) => setTimeout(r, 100));
    expect(rounds).to.equal(after);
  });
});
