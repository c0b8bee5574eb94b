import { expect } from 'chai';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { call } from '../../helpers/gateway.ts';
import { ROOT, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { Upstream } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';

const KEY = 'webhook-kill-key-0123456789abc';
const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

/**
 * The outbox survives kill -9: an event is on disk (fsynced) before the
 * change is answered, and a restart of the compiled gateway on the same
 * DATA_DIR sends what the killed one had not delivered, the same event.
 */
describe('webhook deliveries across a kill -9', function () {
  this.timeout(120_000);
  const receiver = new Upstream();
  let dir: string;
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  let verifyWebhook: (rawBody: string, header: unknown, secret: string) => any;

  const start = async () => {
    running = await spawnGateway({
      PORT: '0',
      DATA_DIR: dir,
      DEFINITIONS_DIR,
      BOOTSTRAP_API_KEY: KEY,
      EGRESS_ALLOW: '127.0.0.1/32',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '400',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    }, 60_000);
    return { url: running.url, apiKey: KEY };
  };
  const kill = async () => {
    running!.child.kill('SIGKILL');
    expect(await running!.exited).to.equal(null);
    expect(running!.child.signalCode).to.equal('SIGKILL');
  };

  before(async () => {
    ({ verifyWebhook } = await import(pathToFileURL(path.join(ROOT, 'examples/webhooks/verify-signature.mjs')).href));
    await receiver.start();
  });
  after(async () => {
    await receiver.stop();
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    running = null;
    receiver.reset();
    await cleanup();
  });

  async function registerAndConnect(gw: { url: string; apiKey: string }) {
    const hook = await call(gw, 'POST', '/v2/webhooks', { body: { url: `${receiver.url}/hook`, events: ['connection.created'] } });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const connection = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'acme-secret-api-key-value-123' }, metadata: { region: 'eu' } } });
    expect(connection.status, JSON.stringify(connection.body)).to.equal(201);
    return { webhookId: hook.body.data.id as string, secret: hook.body.data.secret as string, connectionId: connection.body.data.id as string };
  }

  it('sends after a restart a delivery whose attempts had failed when the gateway was killed', async () => {
    let up = false;
    receiver.on('POST /hook', () => ({ status: up ? 200 : 503 }));
    const first = await start();
    const { webhookId, secret, connectionId } = await registerAndConnect(first);
    await eventually(async () => receiver.calls('POST /hook').length, (n) => n >= 1, 'a first attempt answered 503');
    // Killed once that failed attempt is recorded (one answered but not yet recorded is the in-flight case below).
    await eventually(async () => (await call(first, 'GET', `/v2/webhooks/${webhookId}/deliveries`)).body.data as any[], (list) => (list[0]?.attempts ?? 0) >= 1, 'the failed attempt recorded');
    await kill();
    const refused = receiver.calls('POST /hook').length;

    up = true;
    const second = await start();
    await eventually(async () => receiver.calls('POST /hook').length, (n) => n > refused, 'the delivery sent by the restarted gateway');
    const calls = receiver.calls('POST /hook');
    const event = verifyWebhook(calls.at(-1)!.body, calls.at(-1)!.headers['gateway-signature'], secret);
    expect(event).to.include({ type: 'connection.created' });
    expect(event.data.id).to.equal(connectionId);
    expect(new Set(calls.map((c) => c.headers['gateway-event-id']))).to.deep.equal(new Set([event.id]));
    const [delivery] = (await eventually(async () => (await call(second, 'GET', `/v2/webhooks/${webhookId}/deliveries`)).body.data as any[], (list) => list[0]?.status === 'delivered', 'delivered listed'));
    expect(delivery).to.include({ eventId: event.id, status: 'delivered', responseStatus: 200 });
    expect(delivery.attempts).to.equal(calls.length);
  });

  it('sends after a restart a delivery whose attempt was in flight when the gateway was killed, once its lease ended', async () => {
    let hang = true;
    receiver.on('POST /hook', () => (hang ? { status: 200, delayMs: 60_000 } : { status: 200 }));
    const first = await start();
    const { webhookId, secret, connectionId } = await registerAndConnect(first);
    await eventually(async () => receiver.calls('POST /hook').length, (n) => n === 1, 'the attempt in flight');
    await kill();

    hang = false;
    const second = await start();
    const [delivery] = await eventually(
      async () => (await call(second, 'GET', `/v2/webhooks/${webhookId}/deliveries`)).body.data as any[],
      (list) => list[0]?.status === 'delivered',
      'delivered after the lease of the killed gateway ended',
      30_000,
    );
    const last = receiver.calls('POST /hook').at(-1)!;
    const event = verifyWebhook(last.body, last.headers['gateway-signature'], secret);
    expect(event.data.id).to.equal(connectionId);
    expect(delivery).to.include({ eventId: event.id, status: 'delivered', attempts: 1 });
  });
});
