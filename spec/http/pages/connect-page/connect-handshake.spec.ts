import { expect } from 'chai';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowserOrSkip, screenshot } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';
import { eventually } from '../../../support/eventually.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');

/**
 * A customer's page standing in for the SDK: it opens /connect?origin=<its origin> in a popup (or an iframe),
 * answers `ready` with `init` and the token, and records every message the Connect page posts it.
 */
const OPENER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Customer page</title></head>
<body>
<button id="open" type="button">Connect an account</button>
<script>
window.received = [];
const params = new URLSearchParams(location.search);
const gateway = params.get('gateway');
const connectUrl = gateway + '/connect?origin=' + encodeURIComponent(location.origin);
let target = null;
window.addEventListener('message', (event) => {
  window.received.push({ origin: event.origin, fromTarget: event.source === target, data: event.data });
  if (event.source === target && event.data && event.data.source === 'gateway-connect' && event.data.type === 'ready') {
    target.postMessage({ source: 'gateway-connect', version: 1, type: 'init', token: params.get('token') }, gateway);
  }
});
document.getElementById('open').addEventListener('click', () => {
  target = window.open(connectUrl, 'gateway-connect', 'popup,width=520,height=720');
});
if (params.get('mode') === 'iframe') {
  const frame = document.createElement('iframe');
  frame.title = 'Connect';
  frame.width = '480';
  frame.height = '640';
  frame.src = connectUrl;
  document.body.append(frame);
  target = frame.contentWindow;
}
</script>
</body></html>`;

describe('the Connect page\'s postMessage handshake with the page that opened it (real browser)', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  const allowed = new Upstream();
  const stranger = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let browser: Browser;
  let adaId: string;
  let companyName: string;

  const token = async () => (await call(gw, 'GET', `/v1/users/${adaId}/token`)).body.token as string;
  const received = (page: Page) => page.evaluate(() => (globalThis as any).received as { origin: string; fromTarget: boolean; data: any }[]);

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await upstream.start();
    for (const opener of [allowed, stranger]) {
      await opener.start();
      opener.on('GET /customer', () => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: OPENER_PAGE }));
    }
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    companyName = (await call(gw, 'GET', '/v1/companies')).body.data[0].name;
    adaId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada' } })).body.data.userId;
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [allowed.url], enabledApps: ['notes', 'crm'] } })).status).to.equal(200);
    expect((await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-secret', redirectUri: `${gw.url}/v2/connect/callback` } })).status).to.equal(200);
    // The fake provider: its consent page approves at once; its token endpoint answers tokens.
    upstream.on('GET /oauth/authorize', (request) => {
      const back = new URL(request.query.get('redirect_uri')!);
      back.searchParams.set('state', request.query.get('state')!);
      back.searchParams.set('code', 'code-1');
      return { status: 302, headers: { location: back.toString() } };
    });
    upstream.on('POST /oauth/token', () => ({ body: { access_token: 'access-1', refresh_token: 'refresh-1', expires_in: 3600, token_type: 'Bearer' } }));
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    for (const server of [upstream, allowed, stranger]) await server.stop();
    await cleanupDefs?.();
  });

  async function openCustomer(opener: Upstream, mode = 'popup'): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${opener.url}/customer?${new URLSearchParams({ gateway: gw.url, token: await token(), mode })}`, { waitUntil: 'load' });
    return page;
  }
  async function openPopup(customer: Page): Promise<Page> {
    const popupTarget = browser.waitForTarget((t) => t.url().startsWith(`${gw.url}/connect`));
    await customer.click('#open');
    const popup = (await (await popupTarget).page())!;
    await popup.setViewport({ width: 520, height: 720 });
    return popup;
  }

  it('an allowed opener: ready (no data, to any origin) → init with the token → connected with the connection, posted to that origin only; Done posts close and closes the popup', async () => {
    const customer = await openCustomer(allowed);
    try {
      const popup = await openPopup(customer);
      await popup.waitForSelector('#apps-section:not([hidden])');
      expect(await popup.$eval('#signed-in', (e: any) => e.innerText)).to.equal(`Signed in as Ada · ${companyName}`);
      const first = await received(customer);
      expect(first).to.deep.equal([{ origin: gw.url, fromTarget: true, data: { source: 'gateway-connect', version: 1, type: 'ready' } }]);

      await popup.click('button[data-app="notes"]');
      await popup.waitForSelector('dialog[open] form');
      await popup.type('[name="credentials.apiKey"]', 'nk_handshake01');
      await popup.select('[name="metadata.region"]', 'us');
      await popup.click('dialog button[type="submit"]');
      const messages = await eventually(() => received(customer), (list) => list.some((m) => m.data.type === 'connected'), 'the connected message at the opener');
      const connected = messages.find((m) => m.data.type === 'connected')!;
      const listed = (await call({ url: gw.url, apiKey: await token() }, 'GET', '/v2/end-user/connections')).body.data;
      expect(listed).to.have.length(1);
      expect(connected).to.deep.equal({ origin: gw.url, fromTarget: true, data: { source: 'gateway-connect', version: 1, type: 'connected', connection: listed[0] } });
      await screenshot(popup, 'connect-popup-connected-520');

      const closed = new Promise<void>((resolve) => popup.once('close', () => resolve()));
      // The button closes its own window: the click's last event may find the target gone.
      await popup.click('#close').catch((error: Error) => {
        if (!/Target closed/.test(error.message)) throw error;
      });
      await closed;
      const last = await eventually(() => received(customer), (list) => list.some((m) => m.data.type === 'close'), 'the close message');
      expect(last.map((m) => m.data.type)).to.deep.equal(['ready', 'connected', 'close']);
    } finally {
      await customer.close();
    }
  });

  it('an allowed opener also gets connected for an OAuth app connected through the sign-in popup the Connect page opens', async () => {
    const customer = await openCustomer(allowed);
    try {
      const popup = await openPopup(customer);
      await popup.waitForSelector('#apps-section:not([hidden])');
      await popup.click('button[data-app="crm"]');
      await popup.waitForSelector('dialog[open] form');
      await popup.click('dialog button[type="submit"]');
      const messages = await eventually(() => received(customer), (list) => list.some((m) => m.data.type === 'connected' && m.data.connection.appSlug === 'crm'), 'the connected message for the OAuth app', 30_000);
      const crm = (await call({ url: gw.url, apiKey: await token() }, 'GET', '/v2/end-user/connections')).body.data.find((c: { appSlug: string }) => c.appSlug === 'crm');
      const connected = messages.find((m) => m.data.type === 'connected' && m.data.connection.appSlug === 'crm')!;
      expect(connected).to.deep.equal({ origin: gw.url, fromTarget: true, data: { source: 'gateway-connect', version: 1, type: 'connected', connection: crm } });
      // Nothing of the OAuth return page's own message reaches the customer's page.
      expect(messages.filter((m) => m.data.source !== 'gateway-connect')).to.deep.equal([]);
      await popup.close();
    } finally {
      await customer.close();
    }
  });

  it('an opener on an origin the company does not allow gets ready, then one error naming its origin (never the company), and the page says why', async () => {
    const customer = await openCustomer(stranger);
    try {
      const popup = await openPopup(customer);
      await popup.waitForSelector('#alert:not([hidden])');
      expect(await popup.$eval('#alert', (e: any) => e.innerText)).to.equal(
        // No origin (a host:port) in the end user's words: the SDK's error names it for the developer.
        `This page was opened from a site that may not connect accounts for ${companyName}. Go back to ${companyName} and try again from there.`,
      );
      expect(await popup.$eval('#apps-section', (e: any) => e.hidden)).to.equal(true);
      await screenshot(popup, 'connect-popup-refused-opener-520');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const messages = await received(customer);
      expect(messages.map((m) => m.data.type)).to.deep.equal(['ready', 'error']);
      expect(messages[1]).to.deep.include({ origin: gw.url, fromTarget: true });
      expect(messages[1]!.data.error).to.deep.equal({
        code: 'ORIGIN_NOT_ALLOWED',
        message: `origin ${stranger.url} is not one of the allowedOrigins of this end user's company: add it with PUT /v2/embedding`,
      });
      expect(JSON.stringify(messages)).not.to.include(companyName);
      await popup.close();
    } finally {
      await customer.close();
    }
  });

  it('in an iframe of an allowed origin: framed (frame-ancestors names that origin) and the handshake goes the same way', async () => {
    const customer = await openCustomer(allowed, 'iframe');
    try {
      const frame = await eventually(async () => customer.frames().find((f) => f.url().startsWith(`${gw.url}/connect`)) ?? null, (f) => f !== null, 'the Connect frame');
      await frame!.waitForSelector('#apps-section:not([hidden])');
      expect(await frame!.$eval('#signed-in', (e: any) => e.innerText)).to.equal(`Signed in as Ada · ${companyName}`);
      // ready, then (framed, once the opener is known) the page's height for the SDK to size the frame.
      const types = (await received(customer)).map((m) => m.data.type);
      expect(types[0]).to.equal('ready');
      expect(types.slice(1).every((t) => t === 'resize'), types.join(',')).to.equal(true);
      await screenshot(customer, 'connect-iframe-1280');
    } finally {
      await customer.close();
    }
  });

  it('in an iframe of an origin no company allows: the browser refuses to render it (frame-ancestors \'none\'), so nothing is posted', async () => {
    const customer = await openCustomer(stranger, 'iframe');
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const titles = await Promise.all(customer.frames().slice(1).map((f) => f.evaluate(() => (globalThis as any).document.title).catch(() => null)));
      expect(titles).not.to.include('Connect your accounts');
      expect(await received(customer)).to.deep.equal([]);
    } finally {
      await customer.close();
    }
  });
});
