import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import { Kysely, sql } from 'kysely';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import type { EndUserRecord, Store } from '../../../engine/platform/store/index.ts';
import { pgliteDialect } from '../../../engine/platform/store/sql/pglite-dialect.ts';
import { pgliteDir, pgliteStore, startPgliteThread } from '../../../engine/platform/store/sql/open-pglite.ts';
import type { PgliteThread } from '../../../engine/platform/store/sql/pglite-thread.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/** End users seeded for the slow list: a `=like=` that matches none of them reads every name, twice (the page and its count). */
const SEEDED = 50_000;

/**
 * PGlite runs in a worker thread (engine/platform/store/sql/pglite-thread.ts):
 * the gateway's thread only posts queries, so a slow one never holds a
 * request that needs no store, and a thread that stops answers
 * STORE_UNAVAILABLE (503) instead of hanging its callers.
 */
describe('the embedded store on its own thread', function () {
  this.timeout(180_000);

  describe('a slow list', () => {
    let gw: TestGateway | null = null;
    let cleanup = async () => {};

    before(async () => {
      // A gateway's first start makes the company; the end users are then written with bulk SQL, as the store benchmark does.
      const first = await startTestGateway();
      const dataDir = first.dataDir;
      await first.stop({ keepData: true });
      cleanup = async () => {
        const { rm } = await import('node:fs/promises');
        await rm(dataDir, { recursive: true, force: true });
      };
      const pg = await PGlite.create(pgliteDir(dataDir));
      try {
        const { rows } = await pg.query<{ id: string }>('SELECT id FROM companies LIMIT 1');
        await pg.query(
          `INSERT INTO end_users (id, company_id, external_id, name, email, is_test_user, metadata, created_on, updated_on)
           SELECT 'eu_s' || lpad(i::text, 10, '0'), $1, 'ext-' || i, repeat('a long display name ', 5) || i, 'user' || i || '@example.test', false, '{}'::jsonb, now(), now()
           FROM generate_series(1, $2::int) AS i`,
          [rows[0]!.id, SEEDED],
        );
      } finally {
        await pg.close();
      }
      gw = await startTestGateway({ DATA_DIR: dataDir });
    });
    after(async () => {
      await gw?.stop();
      await cleanup();
    });

    it('does not hold /health: it is answered while the list still runs', async () => {
      const order: string[] = [];
      const list = call(gw!, 'GET', `/v2/end-users?where=${encodeURIComponent('name=like=*zq*zq*zq*')}`).then((answer) => {
        order.push('list');
        return answer;
      });
      // The list's queries are under way by now (they read 50,000 rows twice).
      await new Promise((resolve) => setTimeout(resolve, 50));
      const health = await fetch(`${gw!.url}/health`).then((response) => {
        order.push('health');
        return response.status;
      });
      const listed = await list;
      expect(health).to.equal(200);
      expect(listed.status).to.equal(200);
      expect(listed.body.data).to.deep.equal([]);
      expect(order, 'the order the answers arrived in').to.deep.equal(['health', 'list']);
    });
  });

  describe('its thread', () => {
    let dataDir = '';
    let cleanup = async () => {};
    let thread: PgliteThread;
    let store: Store;
    const stops: string[] = [];

    beforeEach(async () => {
      ({ dir: dataDir, cleanup } = await tempDir());
      thread = await startPgliteThread(dataDir, { templateDir: process.env.PGLITE_TEMPLATE_DIR, onStopped: (reason) => stops.push(reason), restartAfterMs: 300 });
      store = await pgliteStore(thread, dataDir, { queryTimeoutMs: 5_000 });
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
      stops.length = 0;
    });

    it('runs a query while this thread goes on: a timer fires during a pg_sleep', async () => {
      const db = new Kysely<any>({ dialect: pgliteDialect(() => thread.session()) });
      let slept = false;
      const sleep = sql`SELECT pg_sleep(0.5)`.execute(db).then(() => (slept = true));
      const firedDuringSleep = await new Promise<boolean>((resolve) => setTimeout(() => resolve(!slept), 20));
      await sleep;
      expect(firedDuringSleep, 'the 20 ms timer fired before the 500 ms query ended').to.equal(true);
    });

    it('answers STORE_UNAVAILABLE (503) when the thread stops, writes nothing half, and starts it again', async () => {
      const db = new Kysely<any>({ dialect: pgliteDialect(() => thread.session()) });
      // A query under way when the thread stops is answered at once, not after it would have ended.
      const started = performance.now();
      const sleeping = sql`SELECT pg_sleep(30)`.execute(db).then(
        () => null,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await thread.kill();
      const sleepError = await sleeping;
      expect(performance.now() - started).to.be.below(10_000);
      expectUnavailable(sleepError);
      expect(stops).to.have.length(1);
      expect(stops[0]).to.match(/exit code/);

      // Within the restart delay: refused at once. After it: a new thread, a working store.
      expectUnavailable(await store.endUsers.findOne({ id: 'eu_1' }).catch((error: unknown) => error));
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await store.endUsers.findOne({ id: 'eu_1' })).to.equal(null);

      // A transaction whose thread stops: none of its writes stay, its later statements are refused (never run
      // on the next thread outside the transaction).
      const failed = await store
        .transaction(async () => {
          await store.endUsers.insert(endUser('eu_1'));
          await thread.kill();
          await store.endUsers.insert(endUser('eu_2'));
        })
        .catch((error: unknown) => error);
      expectUnavailable(failed);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await store.endUsers.findOne({ id: 'eu_1' })).to.equal(null);
      expect(await store.endUsers.findOne({ id: 'eu_2' })).to.equal(null);
      await store.endUsers.insert(endUser('eu_3'));
      expect((await store.endUsers.findOne({ id: 'eu_3' }))?.email).to.equal('eu_3@example.test');
    });

    it('ends with the store: closed, no thread is left and queries are refused', async () => {
      expect(thread.alive).to.equal(true);
      await store.close();
      expect(thread.alive).to.equal(false);
      expectUnavailable(await thread.session().catch((error: unknown) => error));
    });
  });
});

describe('the embedded store\'s connection line (pglite-dialect.ts)', () => {
  it('serves holders in turn and refuses one past its bound with STORE_UNAVAILABLE (503) instead of queueing it', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const answered: number[] = [];
    const slow = { query: async () => (await gate, { rows: [] }) };
    const db = new Kysely<any>({ dialect: pgliteDialect(() => slow, 3) });
    // One holds the connection, three wait (the bound), the fifth is refused at once.
    const queries = [0, 1, 2, 3].map((i) => sql`SELECT ${i}`.execute(db).then(() => answered.push(i)));
    expectUnavailable(await sql`SELECT 4`.execute(db).catch((error: unknown) => error));
    expect(answered).to.deep.equal([]);
    open();
    await Promise.all(queries);
    expect(answered).to.deep.equal([0, 1, 2, 3]);
    await sql`SELECT 5`.execute(db);
    await db.destroy();
  });
});

function expectUnavailable(error: unknown): void {
  expect(error, String(error)).to.be.instanceOf(GatewayError);
  expect((error as GatewayError).code).to.equal('STORE_UNAVAILABLE');
  expect((error as GatewayError).status).to.equal(503);
  expect((error as GatewayError).message).to.match(/the store is unavailable \(/);
}

function endUser(id: string): EndUserRecord {
  const at = new Date('2026-01-01T00:00:00Z');
  return { id, companyId: 'cmp_a', externalId: null, name: null, email: `${id}@example.test`, isTestUser: false, metadata: {}, createdOn: at, updatedOn: at };
}
