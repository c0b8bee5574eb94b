import { expect } from 'chai';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { call } from '../../helpers/gateway.ts';
import { spawn } from 'node:child_process';
import { ROOT, spawnGateway, type GatewayProcess, killIfRunning } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { storedFilesInclude } from '../../helpers/stored-files.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const CHOSEN_KEY = 'chosen-bootstrap-key-0123456789';

describe('the gateway process (npm start)', function () {
  this.timeout(60_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(async () => {
    await killIfRunning(running);
    running = null;
    await cleanup();
  });

  async function stopGracefully(p: GatewayProcess): Promise<number | null> {
    p.child.kill('SIGTERM');
    return await p.exited;
  }

  it('on an empty store with BOOTSTRAP_API_KEY, serves /v1/users with that key at once', async () => {
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: CHOSEN_KEY });
    const { status, body } = await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/v1/users');
    expect(status).to.equal(200);
    expect(body.data).to.have.length(1);
    expect(running.stdout()).not.to.include(CHOSEN_KEY);
  });

  it('on an empty store without BOOTSTRAP_API_KEY and no terminal, writes the generated key once to DATA_DIR/bootstrap-api-key (0600), logs only where it is, and stores only its hash', async () => {
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir });
    const file = path.join(dir, 'bootstrap-api-key');
    expect(running.stdout() + running.stderr(), 'the key is never in the log stream').not.to.match(/igw_[A-Za-z0-9_-]{43}/);
    const key = (await fs.readFile(file, 'utf8')).trim();
    expect(key).to.match(/^igw_[A-Za-z0-9_-]{43}$/);
    expect((await fs.stat(file)).mode & 0o777).to.equal(0o600);
    const line = running.stdout().split('\n').find((l) => l.includes('bootstrap-api-key'));
    expect(line, running.stdout()).to.not.equal(undefined);
    expect(JSON.parse(line!)).to.include({ file });
    expect((await call({ url: running.url, apiKey: key }, 'GET', '/v1/users')).status).to.equal(200);
    expect(await stopGracefully(running)).to.equal(0);
    expect(await storedFilesInclude(dir, key)).to.equal(false);
    // A second start finds the company: no new key, the file is left as it was.
    await fs.rm(file);
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir });
    expect(running.stdout()).not.to.include('igw_');
    await fs.access(file).then(() => expect.fail('a second start wrote a key file'), () => {});
    expect((await call({ url: running.url, apiKey: key }, 'GET', '/v1/users')).status).to.equal(200);
  });

  it('typed in a terminal (npm start on a TTY), shows the generated key on the terminal with a curl line, and writes no file', async function () {
    // `script` gives the gateway a pseudo-terminal, as a person typing npm start has.
    const child = spawn('script', ['-qefc', `exec "${process.execPath}" --import tsx engine/main.ts`, '/dev/null'], {
      cwd: ROOT,
      // No drain: the SIGTERM below is a test's stop, not a load balancer's.
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk) => (screen += String(chunk)));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 30_000;
      while (!/"msg":"gateway listening"/.test(screen) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
      const printed = /Bearer (igw_[A-Za-z0-9_-]{43})" http:\/\/localhost:(\d+)\/v1\/users/.exec(screen);
      expect(printed, screen).to.not.equal(null);
      expect(screen).to.include('Created company "Default" with an owner and this API key');
      const port = /"port":(\d+)[^\n]*"msg":"gateway listening"/.exec(screen)![1];
      expect((await call({ url: `http://127.0.0.1:${port}`, apiKey: printed![1]! }, 'GET', '/v1/users')).status).to.equal(200);
      await fs.access(path.join(dir, 'bootstrap-api-key')).then(() => expect.fail('a key file was written'), () => {});
    } finally {
      // The gateway runs under `script`, which does not pass SIGTERM on: stop it by the pid it holds
      // DATA_DIR's lock with (the log lines carry no pid), then `script` ends with it.
      const pid = Number.parseInt(await fs.readFile(path.join(dir, 'gateway.pid'), 'utf8').catch(() => ''), 10);
      if (pid > 0) process.kill(pid, 'SIGTERM');
      const ended = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
      if (!ended) {
        if (pid > 0) process.kill(pid, 'SIGKILL');
        child.kill('SIGKILL');
        await exited;
      }
      expect(ended, 'the gateway under script did not stop on SIGTERM').to.equal(true);
    }
  });

  it('ignores BOOTSTRAP_API_KEY on a store that already has a company', async () => {
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: CHOSEN_KEY });
    await stopGracefully(running);
    const otherKey = 'another-bootstrap-key-9876543210';
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: otherKey });
    expect((await call({ url: running.url, apiKey: otherKey }, 'GET', '/v1/users')).status).to.equal(401);
    expect((await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/v1/users')).status).to.equal(200);
  });

  it('keeps what the API wrote across a graceful restart and across a kill -9', async () => {
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: CHOSEN_KEY });
    const gw = { url: running.url, apiKey: CHOSEN_KEY };
    const first = await call(gw, 'POST', '/v1/users', { body: { externalId: 'person-1', name: 'Ada' } });
    expect(first.status).to.equal(200);
    expect(await stopGracefully(running)).to.equal(0);

    running = await spawnGateway({ PORT: '0', DATA_DIR: dir });
    const again = await call({ url: running.url, apiKey: CHOSEN_KEY }, 'POST', '/v1/users', { body: { externalId: 'person-1' } });
    expect(again.body.data.userId).to.equal(first.body.data.userId);
    const second = await call({ url: running.url, apiKey: CHOSEN_KEY }, 'POST', '/v1/users', { body: { externalId: 'person-2' } });
    // No graceful close this time: the acknowledged write must already be on disk.
    running.child.kill('SIGKILL');
    await running.exited;

    running = await spawnGateway({ PORT: '0', DATA_DIR: dir });
    const afterKill = await call({ url: running.url, apiKey: CHOSEN_KEY }, 'POST', '/v1/users', { body: { externalId: 'person-2' } });
    expect(afterKill.body.data.userId).to.equal(second.body.data.userId);
  });

  it('refuses a second gateway on the same DATA_DIR', async () => {
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: CHOSEN_KEY });
    const second = spawnGateway({ PORT: '0', DATA_DIR: dir });
    const error = await second.then(() => null, (e: Error) => e);
    expect(error?.message).to.match(/exited with 1/).and.to.include(`DATA_DIR ${dir} is in use by another gateway process (pid ${running.child.pid})`);
  });

  it('on SIGTERM, finishes the request in flight, then exits 0', async () => {
    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: CHOSEN_KEY });
    const { port } = new URL(running.url);
    const body = JSON.stringify({ externalId: 'in-flight', name: 'Slow Sender' });
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CHOSEN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 10),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    running.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.child.exitCode).to.equal(null);
    socket.write(body.slice(10));
    await ended;
    expect(answer).to.match(/^HTTP\/1\.1 200 OK/);
    expect(answer).to.include('"userId":"eu_');
    expect(await running.exited).to.equal(0);
    // New connections are refused once it has stopped.
    const refused = await fetch(running.url + '/health').then(() => false, () => true);
    expect(refused).to.equal(true);
  });

  it('at the end of SHUTDOWN_GRACE_MS, closes what is still in flight and says the gateway did it (a warning with the count), not that the caller went away', async () => {
    const upstream = new Upstream();
    await upstream.start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), upstream.url);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    upstream.on('GET /api/slow', async () => {
      await held; // an app that takes 30 s: longer than the grace
      return { body: [] };
    });
    try {
      running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: CHOSEN_KEY, DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', SHUTDOWN_GRACE_MS: '500' });
      const gw = { url: running.url, apiKey: CHOSEN_KEY };
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-secret-key' } } })).body.data.id;
      const ran = fetch(`${running.url}/v2/universal/apps/shop/actions/slow/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CHOSEN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ connectionId, arguments: {} }),
      }).then(
        () => 'answered',
        () => 'no answer',
      );
      while (upstream.calls('GET /api/slow').length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      running.child.kill('SIGTERM');
      expect(await running.exited).to.equal(0);
      expect(await ran).to.equal('no answer');
      const logged = running.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: number; msg: string; requests?: number; status?: number; path?: string });
      const warning = logged.find((line) => line.msg.includes('SHUTDOWN_GRACE_MS (500 ms) passed'));
      expect(warning, running.stdout()).to.include({ level: 40, requests: 1, msg: 'shutting down: SHUTDOWN_GRACE_MS (500 ms) passed with 1 request in flight; the gateway closed its connection, unanswered' });
      expect(logged.map((line) => line.msg)).to.include('the gateway closed this request unanswered: it was still in flight when SHUTDOWN_GRACE_MS ran out');
      expect(logged.map((line) => line.msg)).not.to.include('the caller went away before the answer');
      const requestLine = logged.find((line) => line.msg === 'request' && line.path === '/v2/universal/apps/shop/actions/slow/run');
      expect(requestLine?.status, 'the request line: 503, the gateway unavailable, not 499 (the client closed)').to.equal(503);
    } finally {
      release();
      await upstream.stop();
      await defs.cleanup();
    }
  });
});
