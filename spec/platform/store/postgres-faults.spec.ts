import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../engine/config/config.ts';
import { startGateway, type RunningGateway } from '../../../engine/gateway.ts';
import { startThrowawayCluster, type ThrowawayCluster } from '../../../scripts/postgres/throwaway-cluster.ts';
import { call, TEST_API_KEY } from '../../helpers/gateway.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { postgresOrSkip } from '../../helpers/postgres.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * PostgreSQL going away: at start the gateway waits for it, saying so in
 * the log; while serving, a request answers 503 STORE_UNAVAILABLE (never a
 * 500) and /ready 503, and both recover by themselves once it is back. Its
 * own throwaway cluster, since the spec stops the server.
 */
describe('PostgreSQL down: at start and while serving', function () {
  this.timeout(180_000);
  let cluster: ThrowawayCluster;
  let gateway: RunningGateway | null = null;
  let cleanup: () => Promise<void> = async () => {};

  before(async function () {
    postgresOrSkip(this, 'the PostgreSQL fault spec');
    if (process.env.TEST_DATABASE_URL) {
      console.log('      SKIPPED: the PostgreSQL fault spec stops its server: it runs on a throwaway cluster, not TEST_DATABASE_URL');
      this.skip();
    }
    cluster = await startThrowawayCluster();
  });
  after(async () => {
    await gateway?.stop().catch(() => {});
    await cluster?.stop();
    await cleanup();
  });

  it('waits for a server that is down at start, logging each attempt without the password, and serves once it is up', async () => {
    await cluster.pause();
    const temp = await tempDir();
    cleanup = temp.cleanup;
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: temp.dir, DATABASE_URL: cluster.url, ENCRYPTION_KEY: randomBytes(32).toString('base64'), BOOTSTRAP_API_KEY: TEST_API_KEY });
    const capture = captureLogs();
    const starting = startGateway(config, capture.logger);
    const deadline = Date.now() + 30_000;
    while (!capture.text().includes('the gateway waits for it and tries again') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(capture.text()).to.include('the store is unavailable (postgres://igw:***@127.0.0.1:');
    expect(capture.text()).not.to.include('igw:igw@');
    await cluster.resume();
    gateway = await starting;
    expect((await call({ url: `http://127.0.0.1:${gateway.port}`, apiKey: TEST_API_KEY }, 'GET', '/v1/users')).status).to.equal(200);
  });

  it('answers 503 STORE_UNAVAILABLE while the server is gone, /ready 503, and recovers by itself', async () => {
    const gw = { url: `http://127.0.0.1:${gateway!.port}`, apiKey: TEST_API_KEY };
    expect((await call(gw, 'POST', '/v1/users', { body: { externalId: 'before' } })).status).to.equal(200);
    await cluster.pause();
    const list = await call(gw, 'GET', '/v2/end-users');
    expect(list.status).to.equal(503);
    expect(list.body.error.code).to.equal('STORE_UNAVAILABLE');
    expect(list.body.error.message).to.match(/^the store is unavailable \(.+\); try again shortly$/);
    const write = await call(gw, 'POST', '/v1/users', { body: { externalId: 'during' } });
    expect(write.status).to.equal(503);
    expect(write.body.error.code).to.equal('STORE_UNAVAILABLE');
    expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(503);
    expect((await call(gw, 'GET', '/health', { auth: null })).status).to.equal(200);
    await cluster.resume();
    const after = await call(gw, 'GET', '/v2/end-users');
    expect(after.status).to.equal(200);
    expect(after.body.data.map((u: { externalId: string }) => u.externalId)).to.deep.equal(['before']);
    expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(200);
  });

  it('answers 503 STORE_UNAVAILABLE when the server stops answering on open connections (a frozen host, a partition), within its query timeout, and recovers', async () => {
    const temp = await tempDir();
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: temp.dir, DATABASE_URL: cluster.url, ENCRYPTION_KEY: randomBytes(32).toString('base64'), BOOTSTRAP_API_KEY: TEST_API_KEY, STORE_QUERY_TIMEOUT_MS: '1000' });
    const frozenGateway = await startGateway(config, captureLogs().logger);
    try {
      const gw = { url: `http://127.0.0.1:${frozenGateway.port}`, apiKey: TEST_API_KEY };
      // The pool's connections are open before the server freezes: the requests go out on them.
      await Promise.all(Array.from({ length: 4 }, () => call(gw, 'GET', '/v2/end-users')));
      await cluster.freeze();
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 3 }, () => call(gw, 'GET', '/v2/end-users')));
      expect(answers.map((a) => a.status)).to.deep.equal([503, 503, 503]);
      expect(answers[0]!.body.error.code).to.equal('STORE_UNAVAILABLE');
      expect(Date.now() - started, 'answered, not held until the server came back').to.be.below(20_000);
      await cluster.thaw();
      let after = await call(gw, 'GET', '/v2/end-users');
      for (let i = 0; i < 20 && after.status !== 200; i++) after = await call(gw, 'GET', '/v2/end-users');
      expect(after.status).to.equal(200);
    } finally {
      await cluster.thaw().catch(() => {});
      await frozenGateway.stop();
      await temp.cleanup();
    }
  });
});
