import { expect } from 'chai';
import path from 'node:path';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot } from '../../helpers/browser.ts';
import { startExampleServer, type ExampleServer } from '../../helpers/example-server.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';

const SHOP_KEY = 'shop-key-typed-by-the-end-user';
const CRM_ACCESS_TOKEN = 'crm-access-token-from-the-provider';

/**
 * Issue 20 items 2 and 7, end to end in headless Chromium: the example customer page (examples/embedding, served
 * by its own server.mjs on another origin) loads the SDK from a real gateway, opens the Connect page, and the end
 * user connects an API-key app through its form and an OAuth app against a local fake provider, sees both
 * listed, runs an action (the stand-in app receives the credential), disconnects; once more in iframe mode; and a
 * page on an origin the company does not allow gets no connection.
 */
describe('the example customer page with the browser SDK and the Connect page (headless Chromium)', function () {
  this.timeout(120_000);
  const app = new Upstream(); // the shop app (API key) and the CRM (OAuth 2.0) with its authorization server
  let gw: TestGateway;
  let example: ExampleServer;
  let stranger: ExampleServer;
  let browser: Browser;
  let cleanup: () => Promise<void>;

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await app.start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), app.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    example = await startExampleServer({ GATEWAY_URL: gw.url, GATEWAY_API_KEY: gw.apiKey });
    stranger = await startExampleServer({ GATEWAY_URL: gw.url, GATEWAY_API_KEY: gw.apiKey });
    // The customer's one-time setup, with the API key: its page's origin, the apps its end users may connect, its OAuth
    // client (the callback on the gateway's address, registered with the provider: the gateway listens on port 0).
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [example.origin], enabledApps: ['shop', 'crm'] } })).status).to.equal(200);
    expect((await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-secret', redirectUri: `${gw.url}/v2/connect/callback` } })).status).to.equal(200);
  });
  after(async () => {
    if (!browser) return; // skipped without Chromium: nothing was started
    await browser.close();
    await stranger?.stop();
    await example?.stop();
    await gw?.stop();
    await app.stop();
    await cleanup?.();
  });
  beforeEach(() => {
    app.reset();
    // The fake provider: its authorize page sends the browser straight back with a code; its token endpoint trades it.
    app.on('GET /oauth/authorize', (request) => {
      const back = new URL(request.query.get('redirect_uri')!);
      back.searchParams.set('code', 'code-from-the-provider');
      back.searchParams.set('state', request.query.get('state')!);
      return { status: 302, headers: { location: back.href } };
    });
    app.on('POST /oauth/token', () => ({ body: { access_token: CRM_ACCESS_TOKEN, refresh_token: 'crm-refresh', expires_in: 3600, token_type: 'Bearer' } }));
    app.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'order-1', total: 42 }] } } }));
    app.on('GET /crm/contacts', () => ({ body: { contacts: [{ name: 'Grace' }] } }));
  });

  /** A new tab on a customer page, with what it logged. */
  async function customerPage(origin: string, viewport: { width: number; height: number } = DESKTOP): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    await page.setViewport(viewport);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    return { page, problems };
  }

  /** Clicks a button of the customer page that opens the Connect popup, and answers the popup's page. */
  async function openPopup(page: Page): Promise<Page> {
    const opened = browser.waitForTarget((t) => t.opener() === page.target() && t.url().startsWith(`${gw.url}/connect`));
    await page.click('#connect-popup');
    const popup = (await (await opened).page())!;
    await popup.setViewport(PHONE);
    return popup;
  }

  /** The Connect page's steps: pick the app, then fill its form or continue to the provider. */
  async function connectWithForm(connect: Page | Frame, appSlug: string, values: Record<string, string>, shot?: { page: Page; name: string }): Promise<void> {
    const pick = await connect.waitForSelector(`button[data-app="${appSlug}"]`, { visible: true });
    if (shot) await screenshot(shot.page, `${shot.name}-apps`);
    await pick!.click();
    for (const [name, value] of Object.entries(values)) await (await connect.waitForSelector(`#step [name="${name}"]`, { visible: true }))!.type(value);
    if (shot) await screenshot(shot.page, `${shot.name}-form`);
    await connect.click('#step button[type="submit"]');
  }

  const listed = (page: Page) => page.$$eval('#connections li', (items) => items.map((i) => ((i as any).dataset.appSlug as string)));
  const status = (page: Page) => page.$eval('#status', (e) => e.textContent);

  it('connects the API-key app through the Connect form and the OAuth app through the fake provider, lists both, runs an action, disconnects (popup; 1280 and 375 px)', async () => {
    const { page, problems } = await customerPage(example.origin);
    await page.waitForSelector('#no-connections:not([hidden])');

    // 1. The API-key app, through the form the Connect page builds from the auth's arguments.
    let popup = await openPopup(page);
    await connectWithForm(popup, 'shop', { 'credentials.apiKey': SHOP_KEY }, { page: popup, name: 'connect-popup-375' });
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#connections li[data-app-slug="shop"]'));
    expect(await status(page)).to.match(/^Connected: /);
    // The SDK closed the popup once the connection was made.
    await eventually(async () => popup.isClosed(), (closed) => closed, 'the SDK closes the Connect popup once connected');

    // 2. The OAuth app: the Connect page sends the end user to the provider, which sends them back with a code.
    popup = await openPopup(page);
    await (await popup.waitForSelector('button[data-app="crm"]', { visible: true }))!.click();
    await popup.click('#step button[type="submit"]');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#connections li').length === 2, { timeout: 30_000 });
    expect(await listed(page)).to.have.members(['shop', 'crm']);
    // Named as the company's apps are named (GatewayConnect.listApps), with their status.
    expect(await page.$$eval('#connections li', (items) => items.map((i) => i.textContent))).to.have.members(['Shopshop · activeDisconnect', 'CRMcrm · activeDisconnect']);
    const [authorize] = app.calls('GET /oauth/authorize');
    expect(authorize!.query.get('client_id')).to.equal('crm-client');
    expect(authorize!.query.get('redirect_uri')).to.equal(`${gw.url}/v2/connect/callback`);
    expect(app.calls('POST /oauth/token')).to.have.length(1);

    // 3. Run an action with the API-key connection: the page shows the envelope's data; the app got the typed key.
    const shopConnection = await page.$eval('#connections li[data-app-slug="shop"]', (e) => (e as any).dataset.connectionId as string);
    await page.select('#run-connection', shopConnection);
    await page.type('#run-action', 'list-orders');
    await page.$eval('#run-arguments', (e) => ((e as any).value = ''));
    await page.type('#run-arguments', '{"status":"open"}');
    await page.click('#run');
    await page.waitForSelector('#run-result:not([hidden])');
    expect(JSON.parse((await page.$eval('#run-result', (e) => e.textContent))!)).to.deep.equal([{ id: 'order-1', total: 42 }]);
    expect(await status(page)).to.equal('The action ran.');
    const [order] = app.calls('GET /api/orders');
    expect(order!.headers['x-api-key']).to.equal(SHOP_KEY);
    expect(order!.query.get('status')).to.equal('open');

    // ... and with the OAuth connection: the provider's access token goes to the app.
    const crmConnection = await page.$eval('#connections li[data-app-slug="crm"]', (e) => (e as any).dataset.connectionId as string);
    await page.select('#run-connection', crmConnection);
    await page.$eval('#run-action', (e) => ((e as any).value = ''));
    await page.type('#run-action', 'list-contacts');
    await page.$eval('#run-arguments', (e) => ((e as any).value = '{}'));
    await page.click('#run');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#run-result').textContent.includes('Grace'));
    expect(app.calls('GET /crm/contacts')[0]!.headers.authorization).to.equal(`Bearer ${CRM_ACCESS_TOKEN}`);

    await screenshot(page, 'example-page-connected-1280');
    await page.setViewport(PHONE);
    await screenshot(page, 'example-page-connected-375');
    const { overflow, widest } = await horizontalOverflow(page);
    expect(overflow, `the example page scrolls sideways at 375 px; widest: ${widest}`).to.equal(0);
    await page.setViewport(DESKTOP);

    // 4. Disconnect the API-key app from the customer page: it is gone from the gateway too.
    await page.click(`#connections li[data-app-slug="shop"] button`);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#connections li').length === 1);
    expect(await listed(page)).to.deep.equal(['crm']);
    expect(await status(page)).to.match(/^Disconnected: /);
    expect((await call(gw, 'GET', `/v2/connections/${shopConnection}`)).status).to.equal(404);
    // No secret reached the customer's page or the gateway's logs.
    const html = await page.content();
    expect(html).not.to.include(SHOP_KEY).and.not.to.include(CRM_ACCESS_TOKEN);
    expect(gw.logs()).not.to.include(SHOP_KEY).and.not.to.include(CRM_ACCESS_TOKEN);
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it('connects in iframe mode inside the customer page, then removes the iframe', async () => {
    const { page, problems } = await customerPage(example.origin);
    // The page has listed what the gateway holds (the company's connections are this end user's here): counted
    // before its first list arrived, the list's own arrival looked like the new connection, and the iframe was
    // checked while the end user was still connecting.
    const before = (await call(gw, 'GET', '/v2/connections')).body.data.length as number;
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('#connections li').length === n, {}, before);
    await page.click('#connect-inline');
    const frame = await page.waitForFrame((f) => f.url().startsWith(`${gw.url}/connect`));
    // The frame fits the page's content (the SDK applies the page's resize messages): nothing cut off, no empty band.
    await frame.waitForSelector('#apps-section:not([hidden])');
    const fits = async () => {
      const outer = await page.$eval('#connect-frame iframe', (f: any) => Math.round(f.getBoundingClientRect().height));
      const inner = await frame.evaluate(() => Math.ceil((globalThis as any).document.body.getBoundingClientRect().height));
      return Math.abs(outer - inner) <= 2 ? 'fits' : `frame ${outer} px, content ${inner} px`;
    };
    let verdict = '';
    for (let i = 0; i < 20 && verdict !== 'fits'; i++) {
      verdict = await fits();
      if (verdict !== 'fits') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(verdict).to.equal('fits');
    await screenshot(page, 'example-page-iframe-sized-1280');
    await connectWithForm(frame, 'shop', { 'credentials.apiKey': 'key-typed-in-the-iframe' }, { page, name: 'example-page-iframe-1280' });
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('#connections li').length === n, {}, before + 1);
    expect(await page.$$('#connect-frame iframe')).to.have.length(0);
    expect(await status(page)).to.match(/^Connected: /);
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it('a page whose origin the company does not allow gets no connection: the Connect page refuses it (popup) or is not framed (iframe), and the promise rejects', async () => {
    const connectionsBefore = (await call(gw, 'GET', '/v2/connections')).body.data.length;
    const { page } = await customerPage(stranger.origin);
    // Its own calls to the gateway are refused by CORS already.
    await page.waitForFunction(() => /Could not list/.test((globalThis as any).document.querySelector('#status').textContent));
    // The Connect page refuses the origin and says so to the SDK, which rejects at once and closes its popup.
    const opened = browser.waitForTarget((t) => t.opener() === page.target() && t.url().startsWith(`${gw.url}/connect`));
    await page.click('#connect-popup');
    await opened;
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').dataset.code === 'ORIGIN_NOT_ALLOWED');
    // The user reads a sentence; the code stays in the SDK's error (the page logs it for its developer).
    expect(await status(page)).to.equal('Your account could not be connected. Try again, or contact us if it keeps happening.');
    await screenshot(page, 'example-page-refused-origin-375');
    // In an iframe the gateway refuses to be framed by that origin at all (frame-ancestors): no ready, UNAVAILABLE.
    const framed = await page.evaluate(async (gatewayUrl) => {
      const sdk = (globalThis as any).GatewayConnect;
      return sdk.open({ gatewayUrl, token: 'never-sent', mode: 'iframe', container: '#connect-frame', readyTimeoutMs: 3000 }).then(
        () => 'connected',
        (error: { code: string }) => `${error.code} ${(globalThis as any).document.querySelectorAll('iframe').length}`,
      );
    }, gw.url);
    expect(framed).to.equal('UNAVAILABLE 0');
    expect((await call(gw, 'GET', '/v2/connections')).body.data.length).to.equal(connectionsBefore);
    await page.close();
  });
});
