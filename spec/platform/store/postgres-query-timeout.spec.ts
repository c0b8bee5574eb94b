import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../../engine/config/config.ts';
import { startGateway, type RunningGateway } from '../../../engine/gateway.ts';
import { call, TEST_API_KEY } from '../../helpers/gateway.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { freshDatabase, postgresOrSkip } from '../../helpers/postgres.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * STORE_QUERY_TIMEOUT_MS on PostgreSQL is every statement's
 * statement_timeout: a list the server does not finish in time (here it
 * waits on a lock another session holds on the table) answers 503
 * QUERY_TIMEOUT naming the setting, never a 500 and never a request that
 * hangs; the next one, once the table is free, answers 200.
 */
describe('PostgreSQL: a query past STORE_QUERY_TIMEOUT_MS', function () {
  this.timeout(120_000);
  let database: { url: string; drop(): Promise<void> } | null = null;
  let gateway: RunningGateway | null = null;
  let locker: pg.Client | null = null;
  let cleanup: () => Promise<void> = async () => {};

  before(async function () {
    postgresOrSkip(this, 'the PostgreSQL query timeout spec');
    database = await freshDatabase();
    const temp = await tempDir();
    cleanup = temp.cleanup;
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: temp.dir,
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_API_KEY: TEST_API_KEY,
      STORE_QUERY_TIMEOUT_MS: '300',
    });
    gateway = await startGateway(config, captureLogs().logger);
  });
  after(async () => {
    await locker?.end().catch(() => {});
    await gateway?.stop().catch(() => {});
    await database?.drop();
    await cleanup();
  });

  it('answers 503 QUERY_TIMEOUT naming the setting, and 200 once the query can finish', async () => {
    const gw = { url: `http://127.0.0.1:${gateway!.port}`, apiKey: TEST_API_KEY };
    expect((await call(gw, 'POST', '/v1/users', { body: { externalId: 'one' } })).status).to.equal(200);
    locker = new pg.Client({ connectionString: database!.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE end_users IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const list = await call(gw, 'GET', '/v2/end-users');
    expect(list.status).to.equal(503);
    expect(list.body).to.deep.include({ success: false });
    expect(list.body.error.code).to.equal('QUERY_TIMEOUT');
    expect(list.body.error.message).to.equal(
      'the store did not finish the query within STORE_QUERY_TIMEOUT_MS (300 ms); narrow the request (a more selective where) or try again',
    );
    expect(Date.now() - started).to.be.lessThan(30_000);
    await locker.query('ROLLBACK');
    const after = await call(gw, 'GET', '/v2/end-users');
    expect(after.status).to.equal(200);
    expect(after.body.data.map((u: { externalId: string }) => u.externalId)).to.deep.equal(['one']);
  });
});
