import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { openPostgresStore } from '../../../engine/platform/store/sql/open-postgres.ts';
import type { Store } from '../../../engine/platform/store/index.ts';
import { issueApiKey } from '../../../engine/tenancy/api-keys/api-keys.ts';
import { call } from '../../helpers/gateway.ts';
import { freshDatabase, postgresOrSkip } from '../../helpers/postgres.ts';
import { killIfRunning, ROOT, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const KEY = 'fleet-bootstrap-key-0123456789abcdef';
const FIXTURE = path.join(ROOT, 'spec/fixtures/run-client-credentials');

/**
 * A fleet: two gateway processes on one PostgreSQL database (DATABASE_URL),
 * sharing nothing else. A token renewal is made by one of them while the
 * other waits for its token; each webhook delivery is attempted by one of
 * them at a time; an API key revoked through one is refused by the other on
 * the next request (on PostgreSQL no gateway caches keys: every request
 * reads it).
 */
describe('a fleet: two gateway processes on one PostgreSQL', function () {
  this.timeout(180_000);
  const upstream = new Upstream();
  let database: { url: string; drop(): Promise<void> };
  let a: GatewayProcess;
  let b: GatewayProcess;
  let store: Store;
  const cleanups: (() => Promise<void>)[] = [];

  before(async function () {
    postgresOrSkip(this, 'the fleet spec');
    database = await freshDatabase();
    await upstream.start();
    cleanups.push(() => upstream.stop());
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanups.push(defs.cleanup);
    const env = (dataDir: string) => ({
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: encryptionKey,
      BOOTSTRAP_API_KEY: KEY,
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    const encryptionKey = randomBytes(32).toString('base64');
    const dirA = await tempDir();
    const dirB = await tempDir();
    cleanups.push(dirA.cleanup, dirB.cleanup);
    // Both start at once: the migrations run once, under their lock.
    [a, b] = await Promise.all([spawnGateway(env(dirA.dir)), spawnGateway(env(dirB.dir))]);
    store = await openPostgresStore(database.url, { queryTimeoutMs: 5_000, poolMax: 2 });
  });
  after(async () => {
    for (const gateway of [a, b]) if (gateway) await killIfRunning(gateway);
    await store?.close();
    for (const cleanup of cleanups) await cleanup();
    await database?.drop();
  });

  const on = (gateway: GatewayProcess, apiKey = KEY) => ({ url: gateway.url, apiKey });

  it('migrates once and bootstraps one company for both', async () => {
    expect(await store.companies.count({})).to.equal(1);
    expect((await call(on(a), 'GET', '/v1/users')).status).to.equal(200);
    expect((await call(on(b), 'GET', '/v1/users')).status).to.equal(200);
  });

  it('renews an expired token once for the fleet: one gateway calls the token endpoint, the other waits for its token', async () => {
    let issued = 0;
    upstream.on('POST /robot/oauth/token', () => ({ body: { access_token: `robot-token-${++issued}`, token_type: 'bearer', expires_in: 1 } }));
    upstream.on('GET /robot/jobs', () => ({ body: { jobs: [{ id: 'j1' }] } }));
    const created = await call(on(a), 'POST', '/v2/connections', { body: { appSlug: 'robot', credentials: { clientId: 'robot-client', clientSecret: 'robot-secret' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const connectionId = created.body.data.id as string;
    const run = (gateway: GatewayProcess) => call(on(gateway), 'POST', '/v2/universal/apps/robot/actions/list-jobs/run', { body: { connectionId } });
    // The first token expires at once (within the renewal skew): every run from now on must renew first.
    expect((await run(a)).status).to.equal(200);
    const before = upstream.calls('POST /robot/oauth/token').length;
    upstream.on('POST /robot/oauth/token', () => ({ delayMs: 1_000, body: { access_token: `robot-token-${++issued}`, token_type: 'bearer', expires_in: 3600 } }));
    const runs = await Promise.all([run(a), run(b), run(a), run(b), run(b), run(a)]);
    expect(runs.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
    expect(upstream.calls('POST /robot/oauth/token').length - before, 'token endpoint calls for the whole fleet').to.equal(1);
    const bearers = upstream.calls('GET /robot/jobs').slice(-6).map((r) => r.headers.authorization);
    expect(new Set(bearers)).to.deep.equal(new Set([`Bearer robot-token-${issued}`]));
  });

  it('attempts each webhook delivery from one gateway at a time: every event arrives once', async () => {
    upstream.on('POST /hook', () => ({ delayMs: 300, status: 200, body: {} }));
    const endpoint = await call(on(a), 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hook`, events: ['connection.created'] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
    const created = [];
    for (let i = 0; i < 6; i++) {
      const gateway = i % 2 ? a : b;
      created.push(await call(on(gateway), 'POST', '/v2/connections', { body: { appSlug: 'robot', credentials: { clientId: `c${i}`, clientSecret: 's' } } }));
    }
    expect(created.map((c) => c.status)).to.deep.equal([201, 201, 201, 201, 201, 201]);
    const deadline = Date.now() + 30_000;
    while (upstream.calls('POST /hook').length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Time for a second attempt of any event to arrive, were one made.
    await new Promise((r) => setTimeout(r, 1_500));
    const ids = upstream.calls('POST /hook').map((r) => String(r.headers['gateway-event-id']));
    expect(ids).to.have.length(6);
    expect(new Set(ids).size).to.equal(6);
    expect(await store.webhookDeliveries.count({ status: 'delivered' })).to.equal(6);
  });

  it('refuses, on the other gateway, an API key revoked through one, from the next request on', async () => {
    const company = (await store.companies.findOne({}))!;
    const owner = (await store.members.findOne({ companyId: company.id }))!;
    const { key, record } = await issueApiKey(store, { companyId: company.id, userId: owner.userId }, 'fleet');
    expect((await call(on(a, key), 'GET', '/v1/users')).status).to.equal(200);
    expect((await call(on(b, key), 'GET', '/v1/users')).status).to.equal(200);
    expect(await store.apiKeys.updateOne({ id: record.id, revokedOn: null }, { $set: { revokedOn: new Date() } })).to.equal(true);
    expect((await call(on(b, key), 'GET', '/v1/users')).status).to.equal(401);
    expect((await call(on(a, key), 'GET', '/v1/users')).status).to.equal(401);
  });
});
