import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowserOrSkip, DESKTOP } from '../../../helpers/browser.ts';
import { startExampleServer, type ExampleServer } from '../../../helpers/example-server.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';
import { eventually } from '../../../support/eventually.ts';

/**
 * A stand-in for the gateway's Connect page, on an origin of its own, that speaks the SDK's postMessage
 * protocol in one way per scenario (the first path segment): the SDK's side of the protocol is tested here
 * against every answer a Connect page can give; the real page is driven in spec/http/embedding/example-page.spec.ts.
 */
const STAND_IN = `<!doctype html><meta charset="utf-8"><title>stand-in Connect page</title><script>
const scenario = location.pathname.split('/')[1];
const customer = new URLSearchParams(location.search).get('origin');
const host = window.opener || window.parent;
const post = (message, target) => host.postMessage({ source: 'gateway-connect', version: 1, ...message }, target || customer);
if (scenario === 'rogue') post({ type: 'connected', connection: { id: 'con_rogue' } }, '*');
else if (scenario !== 'silent') post({ type: 'ready' }, '*');
window.addEventListener('message', (event) => {
  const message = event.data;
  if (event.origin !== customer || !message || message.type !== 'init') return;
  const seen = { id: 'con_stand_in', token: message.token, initOrigin: event.origin, app: message.app || null };
  if (scenario === 'connects') post({ type: 'connected', connection: seen });
  if (scenario === 'reconnects') { post({ type: 'disconnected', connectionId: 'con_old' }); post({ type: 'reconnected', connection: seen }); }
  if (scenario === 'slow') setTimeout(() => post({ type: 'connected', connection: { id: 'con_real' } }), 400);
  if (scenario === 'closes') post({ type: 'close' });
  if (scenario === 'fails') post({ type: 'error', error: { code: 'UNAUTHORIZED', message: 'your session expired: reload the page' } });
});
</script>`;

class StandInConnect {
  readonly requested: string[] = [];
  private server!: http.Server;
  url = '';
  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.requested.push(req.url ?? '');
      if (/^\/[a-z]+\/connect\?/.test(req.url ?? '')) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(STAND_IN);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('the browser SDK in a real browser (headless Chromium), from the example customer page', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  const standIn = new StandInConnect();
  let gw: TestGateway;
  let example: ExampleServer;
  let browser: Browser;
  let page: Page;
  let cleanup: () => Promise<void>;
  let endUserId: string;

  /** GatewayConnect.open in the page with the stand-in of `scenario` as the gateway; answers what the promise settled with. */
  const openWith = (scenario: string, options: Record<string, unknown> = {}) =>
    page.evaluate(
      async (gatewayUrl, options) => {
        const events: string[] = [];
        try {
          const result = await (globalThis as any).GatewayConnect.open({ token: 'tok-123', ...options, gatewayUrl, onEvent: (e: { type: string }) => events.push(e.type) });
          return { ok: true, result, events, frames: (globalThis as any).document.querySelectorAll('iframe').length };
        } catch (error: any) {
          return { ok: false, name: error.name, code: error.code, message: error.message, isError: error instanceof Error, events, frames: (globalThis as any).document.querySelectorAll('iframe').length };
        }
      },
      `${standIn.url}/${scenario}`,
      options,
    );

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await upstream.start();
    await standIn.start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    example = await startExampleServer({ GATEWAY_URL: gw.url, GATEWAY_API_KEY: gw.apiKey });
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [example.origin], enabledApps: ['shop'] } })).status).to.equal(200);
    endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'demo-user-1', name: 'Demo user' } })).body.data.userId;
    page = await browser.newPage();
    await page.setViewport(DESKTOP);
    // tsx (esbuild keepNames) wraps named functions in __name(): give the page one, for the functions evaluated in it.
    await page.evaluateOnNewDocument('globalThis.__name = (fn) => fn;');
    await page.goto(`${example.origin}/`, { waitUntil: 'load' });
  });
  after(async () => {
    if (!browser) return; // skipped without Chromium: nothing was started
    await browser.close();
    await example?.stop();
    await gw?.stop();
    await standIn.stop();
    await upstream.stop();
    await cleanup?.();
  });
  afterEach(() => upstream.reset());

  it('loads as a classic script (window.GatewayConnect) and as an ES module from another origin, with the same functions', async () => {
    const loaded = await page.evaluate(async (moduleUrl) => {
      const module = await import(moduleUrl);
      const classic = (globalThis as any).GatewayConnect;
      return { classic: Object.keys(classic).sort(), module: Object.keys(module).sort(), types: Object.keys(module).map((k) => typeof module[k]) };
    }, `${gw.url}/sdk/connect.mjs`);
    expect(loaded.classic).to.deep.equal(['GatewayConnectError', 'disconnect', 'listApps', 'listConnections', 'open', 'proxy', 'runAction']);
    expect(loaded.module).to.deep.equal(loaded.classic);
    expect(loaded.types).to.deep.equal(['function', 'function', 'function', 'function', 'function', 'function', 'function']);
  });

  it('popup: hands the token to the Connect page by postMessage to its origin only (never in a URL), resolves with the connection, closes the popup', async () => {
    const before = (await browser.pages()).length;
    const outcome = await openWith('connects', { app: 'shop' });
    expect(outcome.ok, JSON.stringify(outcome)).to.equal(true);
    expect(outcome.result).to.deep.equal({ type: 'connected', connection: { id: 'con_stand_in', token: 'tok-123', initOrigin: example.origin, app: 'shop' } });
    expect(outcome.events).to.deep.equal(['ready', 'connected']);
    const opened = standIn.requested.filter((url) => url.startsWith('/connects/connect'));
    expect(opened).to.deep.equal([`/connects/connect?origin=${encodeURIComponent(example.origin)}&app=shop`]);
    expect(standIn.requested.join(' ')).not.to.include('tok-123');
    // The SDK closed its popup (closeOnConnect).
    await eventually(async () => (await browser.pages()).length, (open) => open === before, 'the popup is closed');
  });

  it('takes the token as a function, asked when the page is ready (the example fetches a fresh one from its backend)', async () => {
    const outcome = await page.evaluate(async (gatewayUrl) => {
      const { connection } = await (globalThis as any).GatewayConnect.open({ gatewayUrl, token: async () => 'fresh-' + 'token' });
      return connection.token;
    }, `${standIn.url}/connects`);
    expect(outcome).to.equal('fresh-token');
  });

  it('resolves a reconnection as reconnected, passing the other events to onEvent', async () => {
    const outcome = await openWith('reconnects');
    expect(outcome.ok).to.equal(true);
    expect(outcome.result.type).to.equal('reconnected');
    expect(outcome.events).to.deep.equal(['ready', 'disconnected', 'reconnected']);
  });

  it("ignores messages from any other window or origin: a forged 'connected' posted by the customer page itself changes nothing", async () => {
    const outcome = await page.evaluate(async (gatewayUrl) => {
      const pending = (globalThis as any).GatewayConnect.open({ gatewayUrl, token: 't' });
      const forged = { source: 'gateway-connect', version: 1, type: 'connected', connection: { id: 'con_forged' } };
      (globalThis as any).postMessage(forged, '*');
      return (await pending).connection.id;
    }, `${standIn.url}/slow`);
    expect(outcome).to.equal('con_real');
  });

  it("ignores a message from the gateway's origin but another window: only the page the SDK opened is believed", async () => {
    const outcome = await page.evaluate(async (gatewayUrl, rogueUrl) => {
      const document = (globalThis as any).document;
      const pending = (globalThis as any).GatewayConnect.open({ gatewayUrl, token: 't' });
      const rogue = document.createElement('iframe');
      rogue.src = rogueUrl;
      document.body.append(rogue);
      try {
        return (await pending).connection.id;
      } finally {
        rogue.remove();
      }
    }, `${standIn.url}/slow`, `${standIn.url}/rogue/connect?origin=${encodeURIComponent(example.origin)}`);
    expect(outcome).to.equal('con_real');
    expect(standIn.requested.some((url) => url.startsWith('/rogue/connect'))).to.equal(true);
  });

  it("rejects with code CLOSED when the page says close, or when the end user closes the popup; with the page's own code on its error", async () => {
    const closed = await openWith('closes');
    expect(closed).to.include({ ok: false, name: 'GatewayConnectError', code: 'CLOSED', isError: true });

    const pending = openWith('waits');
    const target = await browser.waitForTarget((t) => t.url().startsWith(`${standIn.url}/waits/connect`));
    await (await target.page())!.close();
    const userClosed = await pending;
    expect(userClosed).to.include({ ok: false, code: 'CLOSED' });
    expect(userClosed.message).to.equal('the Connect popup was closed before an app was connected');

    const failed = await openWith('fails');
    expect(failed).to.include({ ok: false, code: 'UNAUTHORIZED', message: 'your session expired: reload the page' });
    expect(failed.events).to.deep.equal(['ready', 'error']);
  });

  it('rejects with POPUP_BLOCKED when the browser refuses the popup, UNAVAILABLE when the page never answers, INVALID_OPTIONS for a wrong call', async () => {
    const blocked = await page.evaluate(async (gatewayUrl) => {
      const open = (globalThis as any).open;
      (globalThis as any).open = () => null;
      try {
        await (globalThis as any).GatewayConnect.open({ gatewayUrl, token: 't' });
        return 'resolved';
      } catch (error: any) {
        return `${error.code}: ${error.message}`;
      } finally {
        (globalThis as any).open = open;
      }
    }, `${standIn.url}/connects`);
    expect(blocked).to.equal('POPUP_BLOCKED: the browser blocked the Connect popup: call GatewayConnect.open() from a click handler, before any await');
    const silent = await openWith('silent', { mode: 'iframe', container: '#connect-frame', readyTimeoutMs: 500 });
    expect(silent).to.include({ ok: false, code: 'UNAVAILABLE', frames: 0 });
    expect((await openWith('connects', { mode: 'tab' })).code).to.equal('INVALID_OPTIONS');
    expect((await openWith('connects', { mode: 'iframe', container: '#nowhere' })).code).to.equal('INVALID_OPTIONS');
    expect((await openWith('connects', { token: '' })).code).to.equal('INVALID_OPTIONS');
    expect(await openWith('connects', { language: 'de; drop' })).to.include({ code: 'INVALID_OPTIONS', message: `language: must be a language tag such as 'de' or 'fr-CA' (got "de; drop")` });
    expect((await openWith('connects', { language: 42 })).code).to.equal('INVALID_OPTIONS');
  });

  it('language: opens the Connect page with ?lang= (the page speaks it when it can, else the browser\'s languages decide)', async () => {
    const outcome = await openWith('connects', { app: 'shop', language: 'fr-CA' });
    expect(outcome.ok, JSON.stringify(outcome)).to.equal(true);
    const opened = standIn.requested.filter((url) => url.startsWith('/connects/connect'));
    expect(opened.at(-1)).to.equal(`/connects/connect?origin=${encodeURIComponent(example.origin)}&app=shop&lang=fr-CA`);
  });

  it('iframe: shows the page in the container, resolves with the connection and removes the iframe (also on close)', async () => {
    const connected = await openWith('connects', { mode: 'iframe', container: '#connect-frame' });
    expect(connected.ok).to.equal(true);
    expect(connected.result.connection.initOrigin).to.equal(example.origin);
    expect(connected.frames).to.equal(0);
    const closed = await openWith('closes', { mode: 'iframe', container: '#connect-frame' });
    expect(closed).to.include({ ok: false, code: 'CLOSED', frames: 0 });
  });

  it("lists, runs with and disconnects the end user's own connections against the real gateway (CORS from the example's origin)", async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o-browser' }] } } }));
    const mine = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, name: 'My shop', credentials: { apiKey: 'shop-key-of-demo' } } })).body.data.id;
    const company = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'company-key' } } })).body.data.id;
    const outcome = await page.evaluate(async (gatewayUrl, mine, company) => {
      const sdk = (globalThis as any).GatewayConnect;
      const token = async () => ((await (await fetch('/api/gateway-token')).json()) as { token: string }).token;
      const listed = await sdk.listConnections({ gatewayUrl, token, query: { fields: 'id,name,status' } });
      const apps = (await sdk.listApps({ gatewayUrl, token })).map((app: { slug: string; name: string }) => `${app.slug}:${app.name}`);
      const ran = await sdk.runAction({ gatewayUrl, token, app: 'shop', action: 'list-orders', connectionId: mine, arguments: { status: 'open' } });
      const refused = await sdk.runAction({ gatewayUrl, token, app: 'shop', action: 'list-orders', connectionId: company }).catch((e: any) => ({ code: e.code, status: e.status, message: e.message }));
      const invalid = await sdk.runAction({ gatewayUrl, token, app: 'shop', action: 'list-orders', connectionId: mine, arguments: { status: 'lost' } }).catch((e: any) => ({ code: e.code, status: e.status }));
      const gone = await sdk.disconnect({ gatewayUrl, token, connectionId: mine });
      const after = await sdk.listConnections({ gatewayUrl, token });
      return { listed, apps, ran, refused, invalid, gone, after: after.connections.length };
    }, gw.url, mine, company);
    expect(outcome.listed.connections).to.deep.equal([{ id: mine, name: 'My shop', status: 'active' }]);
    expect(outcome.listed.pagination).to.include({ totalCount: 1 });
    expect(outcome.apps).to.deep.equal(['shop:Shop']);
    expect(outcome.ran).to.include({ success: true });
    expect(outcome.ran.data).to.deep.equal([{ id: 'o-browser' }]);
    expect(upstream.calls('GET /api/orders')[0]!.headers['x-api-key']).to.equal('shop-key-of-demo');
    expect(outcome.refused).to.deep.equal({ code: 'NOT_FOUND', status: 404, message: `connection ${company} does not exist` });
    expect(outcome.invalid).to.deep.equal({ code: 'VALIDATION_ERROR', status: 400 });
    expect(outcome.gone).to.deep.equal({ id: mine, deleted: true });
    expect(outcome.after).to.equal(0);
    expect((await call(gw, 'GET', `/v2/connections/${company}`)).status).to.equal(200);
  });

  it("proxy(): calls the app behind the end user's own connection through the real gateway (CORS from the example's origin), answering the app's Response whatever its status", async () => {
    upstream.on('GET /api/orders/o%201', (req) => ({ headers: { etag: '"o1-v3"' }, body: { id: 'o 1', key: req.headers['x-api-key'], q: req.query.getAll('tag') } }));
    upstream.on('POST /api/orders', (req) => ({ status: 201, body: { type: req.headers['content-type'], got: JSON.parse(req.body), idem: req.headers['if-none-match'] ?? null } }));
    upstream.on('GET /api/files/a%2Fb.txt', () => ({ headers: { 'content-type': 'text/plain' }, body: 'hello from the file' }));
    upstream.on('GET /api/missing', () => ({ status: 404, body: { message: 'no such order' } }));
    const mine = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, name: 'Proxied shop', credentials: { apiKey: 'shop-key-proxied' } } })).body.data.id;
    const company = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'company-key' } } })).body.data.id;
    const run = () =>
      page.evaluate(async (gatewayUrl, mine, company) => {
        const sdk = (globalThis as any).GatewayConnect;
        const token = async () => ((await (await fetch('/api/gateway-token')).json()) as { token: string }).token;
        const failure = (e: any) => ({ name: e.name, code: e.code, status: e.status });
        try {
          const got = await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: 'orders/o 1', query: { tag: ['a', 'b'] } });
          const posted = await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: '/orders', method: 'POST', body: { item: 'tea' }, headers: { 'If-None-Match': '*' } });
          const file = await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: ['files', 'a/b.txt'] });
          const missing = await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: 'missing' });
          return {
            got: { status: got.status, body: await got.json(), etag: got.headers.get('etag'), proxyStatus: got.headers.get('proxy-status') },
            posted: { status: posted.status, body: await posted.json() },
            file: await file.text(),
            missing: { status: missing.status, body: await missing.json() },
            notMine: await sdk.proxy({ gatewayUrl, token, connectionId: company, path: 'orders' }).then(() => 'resolved', failure),
            climbing: await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: 'a/../../admin' }).then(() => 'resolved', failure),
            refused: await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: ['%2e%2e', 'admin'] }).then(() => 'resolved', failure),
            invalid: await sdk.proxy({ gatewayUrl, token, connectionId: mine, path: '' }).then(() => 'resolved', failure),
          };
        } catch (e: any) {
          return { thrown: failure(e), message: e.message };
        }
      }, gw.url, mine, company);

    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [example.origin], enabledApps: ['shop'] } })).status).to.equal(200);
    const off = await page.evaluate(async (gatewayUrl, mine) => {
      const token = async () => ((await (await fetch('/api/gateway-token')).json()) as { token: string }).token;
      return await (globalThis as any).GatewayConnect.proxy({ gatewayUrl, token, connectionId: mine, path: 'orders' }).then(() => 'resolved', (e: any) => `${e.code} ${e.status}`);
    }, gw.url, mine);
    expect(off).to.equal('FORBIDDEN 403');

    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [example.origin], enabledApps: ['shop'], endUserProxy: true } })).status).to.equal(200);
    const outcome: any = await run();
    expect(outcome.got).to.deep.equal({ status: 200, body: { id: 'o 1', key: '[redacted]', q: ['a', 'b'] }, etag: '"o1-v3"', proxyStatus: 'integration-gateway; received-status=200' });
    expect(upstream.calls('GET /api/orders/o%201')[0]!.headers['x-api-key']).to.equal('shop-key-proxied');
    expect(outcome.posted).to.deep.equal({ status: 201, body: { type: 'application/json', got: { item: 'tea' }, idem: '*' } });
    expect(outcome.file).to.equal('hello from the file');
    expect(outcome.missing).to.deep.equal({ status: 404, body: { message: 'no such order' } });
    expect(outcome.notMine).to.deep.equal({ name: 'GatewayConnectError', code: 'NOT_FOUND', status: 404 });
    // A browser resolves .. (and %2E%2E) before sending: the SDK refuses it; the gateway refuses what reaches it (here a double-encoded one).
    expect(outcome.climbing).to.deep.equal({ name: 'GatewayConnectError', code: 'INVALID_OPTIONS' });
    expect(outcome.refused).to.deep.equal({ name: 'GatewayConnectError', code: 'VALIDATION_ERROR', status: 400 });
    expect(outcome.invalid).to.deep.equal({ name: 'GatewayConnectError', code: 'INVALID_OPTIONS' });
  });
});
