import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Filter, Store } from '../../../engine/platform/store/index.ts';
import { migrateToLatest } from '../../../engine/platform/store/sql/migrate.ts';
import { pgliteDialect } from '../../../engine/platform/store/sql/pglite-dialect.ts';
import { sqlStore } from '../../../engine/platform/store/sql/sql-store.ts';
import { freshDatabase, postgresOrSkip } from '../../helpers/postgres.ts';

/**
 * The plans of the list queries the store sends (a page and its bounded count,
 * as engine/platform/query/list-page.ts asks for them), on a company of
 * 20,000 end users, on PGlite and on a PostgreSQL server: a filter on a
 * metadata key that few records hold is answered from the GIN index on
 * metadata, not by reading the company's every row (3.5 s at 1,000,000 end
 * users); a createdOn range is counted from the createdOn index, not by a
 * sequential scan that may start before the range and read the older half
 * of the table first; and the answers (including the negations, which must
 * count a record without the key) are the same as before.
 */
const N = 20_000;
const COMPANY = 'cmp_plans';

interface Case {
  explain(text: string, params: readonly unknown[]): Promise<unknown>;
  store: Store;
  sent: { sql: string; parameters: readonly unknown[] }[];
  close(): Promise<void>;
}

async function seed(run: (text: string) => Promise<unknown>): Promise<void> {
  // Regions eu, us, ap, sa in turn; three end users in a region nobody else is in; one without a region.
  await run(`INSERT INTO end_users (id, company_id, external_id, external_key, name, email, is_test_user, metadata, created_on, updated_on)
    SELECT 'eu_p' || lpad(i::text, 6, '0'), '${COMPANY}', 'ext-' || i, '${COMPANY}:ext-' || i, 'User ' || i, 'user' || i || '@example.test', false,
      CASE WHEN i IN (7, 7007, 17007) THEN '{"region":"antarctica"}'::jsonb WHEN i = 42 THEN '{}'::jsonb
           ELSE jsonb_build_object('region', (ARRAY['eu','us','ap','sa'])[1 + i % 4], 'tier', i % 10) END,
      '2025-01-01T00:00:00Z'::timestamptz + (i || ' seconds')::interval, '2025-01-01T00:00:00Z'::timestamptz + (i || ' seconds')::interval
    FROM generate_series(1, ${N}) AS i`);
  await run('ANALYZE end_users');
}

function capture(sent: Case['sent']) {
  return (event: LogEvent) => {
    if (event.level === 'query') sent.push({ sql: event.query.sql, parameters: event.query.parameters });
  };
}

/** Every index the plan (EXPLAIN FORMAT JSON) reads, and whether it reads a table whole. */
function scans(plan: unknown): { indexes: string[]; seqScan: boolean } {
  const indexes: string[] = [];
  let seqScan = false;
  const walk = (node: Record<string, unknown>) => {
    if (typeof node['Index Name'] === 'string') indexes.push(node['Index Name']);
    if (node['Node Type'] === 'Seq Scan') seqScan = true;
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: Record<string, unknown> }[])[0]!.Plan);
  return { indexes, seqScan };
}

function planSpecs(open: () => Promise<Case>) {
  let c: Case;
  before(async () => (c = await open()));
  after(async () => await c?.close());

  const scope = (filter: Filter): Filter => ({ $and: [{ companyId: COMPANY }, filter] });
  /** The page and the count list-page.ts asks for (first page of 100, count bounded at 10,100), and the plan of each. */
  async function list(filter: Filter, sort: Record<string, 1 | -1> = { createdOn: 1, id: 1 }) {
    c.sent.length = 0;
    const [page, count] = await Promise.all([
      c.store.endUsers.find(scope(filter), { sort, skip: 0, limit: 100 }),
      c.store.endUsers.count(scope(filter), { limit: 10_100, sort }),
    ]);
    const plans = [];
    for (const { sql, parameters } of [...c.sent]) plans.push({ sql, ...scans(await c.explain(`EXPLAIN (FORMAT JSON) ${sql}`, parameters)) });
    return { ids: page.map((r) => r.id), count, plans };
  }

  it('metadata.region==<a value three end users have>: the page and the count read the GIN index on metadata, never the whole table', async () => {
    const { ids, count, plans } = await list({ 'metadata.region': 'antarctica' });
    expect(ids).to.deep.equal(['eu_p000007', 'eu_p007007', 'eu_p017007']);
    expect(count).to.equal(3);
    expect(plans).to.have.length(2);
    for (const plan of plans) expect(plan, plan.sql).to.deep.include({ indexes: ['end_users_metadata'], seqScan: false });
  });

  it('createdOn>… sorted -createdOn: the page and its count read the createdOn index (in the page order), never the table from its start', async () => {
    // Three quarters of the end users match; the table is analyzed, not vacuumed (no visibility map), as PGlite's always is.
    const mid = new Date(Date.parse('2025-01-01T00:00:00Z') + (N / 4) * 1000);
    const { ids, count, plans } = await list({ createdOn: { $gt: mid } }, { createdOn: -1, id: 1 });
    expect(ids.slice(0, 2)).to.deep.equal(['eu_p020000', 'eu_p019999']);
    expect(ids).to.have.length(100);
    expect(count).to.equal(10_100);
    expect(plans).to.have.length(2);
    for (const plan of plans) expect(plan, plan.sql).to.deep.include({ indexes: ['end_users_company_created'], seqScan: false });
  });

  it('metadata.region=in=(...) with a value nobody has reads the index too, and answers nothing', async () => {
    const { ids, count, plans } = await list({ 'metadata.region': { $in: ['atlantis', 'lemuria'] } });
    expect(ids).to.deep.equal([]);
    expect(count).to.equal(0);
    for (const plan of plans) expect(plan, plan.sql).to.deep.include({ indexes: ['end_users_metadata'], seqScan: false });
  });

  it('the negations still count an end user without the key: !=, =out=, $nor, =exists=false', async () => {
    const some = { email: { $in: ['user1@example.test', 'user4@example.test', 'user42@example.test'] } }; // us, eu, none
    expect((await list({ $and: [some, { 'metadata.region': { $ne: 'eu' } }] })).ids).to.deep.equal(['eu_p000001', 'eu_p000042']);
    expect((await list({ 'metadata.region': { $nin: ['eu', 'us', 'ap', 'sa'] } })).count).to.equal(4); // three antarctica, one without
    expect((await list({ $nor: [{ 'metadata.region': 'antarctica' }] })).count).to.equal(10_100); // bounded count: more than 10,100 match
    expect((await list({ $nor: [{ 'metadata.region': { $in: ['eu', 'us', 'ap', 'sa'] } }] })).ids).to.deep.equal(['eu_p000007', 'eu_p000042', 'eu_p007007', 'eu_p017007']);
    expect((await list({ 'metadata.region': { $exists: false } })).ids).to.deep.equal(['eu_p000042']);
    expect((await list({ 'metadata.region': { $exists: true } })).count).to.equal(10_100);
  });
}

describe('list query plans: a metadata filter is answered from its GIN index', function () {
  this.timeout(120_000);

  describe('on PGlite (the embedded store)', () => {
    planSpecs(async () => {
      const pglite = await PGlite.create();
      const sent: Case['sent'] = [];
      const db = new Kysely<any>({ dialect: pgliteDialect(() => pglite), log: capture(sent) });
      await migrateToLatest(db);
      await seed((text) => pglite.exec(text));
      sent.length = 0;
      const store = sqlStore(db, { kind: 'embedded', queryTimeoutMs: 30_000, soleWriter: true, close: () => db.destroy() });
      return {
        store,
        sent,
        explain: async (text, params) => (await pglite.query<{ 'QUERY PLAN': unknown }>(text, [...params])).rows[0]!['QUERY PLAN'],
        close: async () => {
          await store.close();
          await pglite.close();
        },
      };
    });
  });

  describe('on a PostgreSQL server', function () {
    before(function () {
      postgresOrSkip(this, 'the PostgreSQL list plan spec');
    });
    planSpecs(async () => {
      const database = await freshDatabase();
      const pool = new pg.Pool({ connectionString: database.url, max: 4 });
      const sent: Case['sent'] = [];
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: capture(sent) });
      await migrateToLatest(db);
      await seed((text) => pool.query(text));
      sent.length = 0;
      const store = sqlStore(db, { kind: 'postgres', queryTimeoutMs: 30_000, soleWriter: false, close: () => db.destroy() });
      return {
        store,
        sent,
        explain: async (text, params) => (await pool.query<{ 'QUERY PLAN': unknown }>(text, [...params])).rows[0]!['QUERY PLAN'],
        close: async () => {
          await store.close();
          await database.drop();
        },
      };
    });
  });
});
