import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { call } from '../../helpers/gateway.ts';
import { spawnGateway, type GatewayProcess, killIfRunning } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { eventually } from '../../support/eventually.ts';

const CHOSEN_KEY = 'drain-bootstrap-key-0123456789';

/** Resolves with the connection error's code, or 'connected' when the port accepts. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** A POST /v1/users whose body is held back: in flight until `finish()` sends the rest; `answer` is what came back. */
async function slowRequest(port: number) {
  const body = JSON.stringify({ externalId: 'in-flight', name: 'Slow Sender' });
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk) => (text += String(chunk)));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CHOSEN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` + body.slice(0, 10),
  );
  return {
    finish: () => socket.write(body.slice(10)),
    answer: async () => {
      await closed;
      return text;
    },
  };
}

/** The Connection header of an answer to GET `path`, on a fresh keep-alive connection. */
function connectionHeader(url: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true });
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on('end', () => {
          agent.destroy();
          resolve(response.headers.connection);
        });
      })
      .on('error', reject);
  });
}

const lines = (p: GatewayProcess) => p.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

/** A start on a machine busy with other work can take 25 s (loading 133 definition files). */
const START_MS = 60_000;

describe('shutdown drain (SIGTERM, SHUTDOWN_DRAIN_MS)', function () {
  this.timeout(180_000);
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  afterEach(async () => {
    await killIfRunning(running);
    running = null;
    await cleanup();
  });

  async function start(env: Record<string, string>): Promise<GatewayProcess> {
    const temp = await tempDir();
    cleanup = temp.cleanup;
    running = await spawnGateway({ PORT: '0', DATA_DIR: temp.dir, BOOTSTRAP_API_KEY: CHOSEN_KEY, ...env }, START_MS);
    return running;
  }

  it('turns /ready 503 at once, keeps serving (and /health 200) for the drain, then refuses new connections while the request in flight finishes, and exits 0', async () => {
    const p = await start({ SHUTDOWN_DRAIN_MS: '2500', SHUTDOWN_GRACE_MS: '20000' });
    const gw = { url: p.url, apiKey: CHOSEN_KEY };
    const port = Number(new URL(p.url).port);
    expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(200);
    expect(await connectionHeader(`${p.url}/health`)).to.equal('keep-alive');
    const slow = await slowRequest(port);

    p.child.kill('SIGTERM');
    await eventually(async () => lines(p).some((l) => l.msg === 'shutting down: /ready answers 503, requests are still served until the drain is over'), Boolean, 'the drain starts');
    const ready = await call(gw, 'GET', '/ready', { auth: null });
    expect(ready.status).to.equal(503);
    expect(ready.body).to.deep.equal({
      success: false,
      error: { code: 'NOT_READY', message: 'lifecycle: shutting down; requests are still served for 2500 ms, then the listener closes' },
    });
    // Still serving: liveness stays 200 (the process is fine, it is leaving), and the API answers.
    expect((await call(gw, 'GET', '/health', { auth: null })).status).to.equal(200);
    expect((await call(gw, 'GET', '/v1/users')).status).to.equal(200);
    expect(await connectOutcome(port)).to.equal('connected');
    // Keep-alive clients are asked to go: their next request opens a connection to another replica.
    expect(await connectionHeader(`${p.url}/health`)).to.equal('close');

    // The drain is over: the listener is closed although the process still runs the request in flight.
    await eventually(async () => lines(p).some((l) => l.msg === 'drain over: closing the listener, finishing in-flight requests'), Boolean, 'the drain ends', 10_000);
    await eventually(() => connectOutcome(port), (o) => o === 'ECONNREFUSED', 'new connections are refused');
    expect(p.child.exitCode, 'the gateway waits for the request in flight').to.equal(null);

    slow.finish();
    const answer = await slow.answer();
    expect(answer).to.match(/^HTTP\/1\.1 200 OK/);
    expect(answer).to.include('"userId":"eu_');
    expect(await p.exited).to.equal(0);
    expect(lines(p).at(-1)?.msg).to.equal('gateway stopped');
  });

  it('SIGINT (Ctrl-C) does not drain: the listener closes at once', async () => {
    const p = await start({ SHUTDOWN_DRAIN_MS: '60000' });
    const port = Number(new URL(p.url).port);
    const sent = Date.now();
    p.child.kill('SIGINT');
    expect(await p.exited).to.equal(0);
    expect(Date.now() - sent).to.be.below(15_000);
    expect(await connectOutcome(port)).to.equal('ECONNREFUSED');
    expect(lines(p).some((l) => String(l.msg).startsWith('drain over'))).to.equal(false);
  });

  it('a second signal during the drain ends it', async () => {
    const p = await start({ SHUTDOWN_DRAIN_MS: '60000' });
    const gw = { url: p.url, apiKey: CHOSEN_KEY };
    p.child.kill('SIGTERM');
    await eventually(() => call(gw, 'GET', '/ready', { auth: null }), (a) => a.status === 503, '/ready turns 503');
    const sent = Date.now();
    p.child.kill('SIGINT');
    expect(await p.exited).to.equal(0);
    expect(Date.now() - sent).to.be.below(15_000);
    expect(lines(p).map((l) => l.msg)).to.include.members(['second signal: ending the drain now', 'drain over: closing the listener, finishing in-flight requests', 'gateway stopped']);
  });
});
