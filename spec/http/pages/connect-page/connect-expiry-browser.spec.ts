import { expect } from 'chai';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { DESKTOP, launchBrowserOrSkip } from '../../../helpers/browser.ts';
import { call } from '../../../helpers/gateway.ts';
import { eventually } from '../../../support/eventually.ts';
import { ConnectPageWorld } from './connect-page-world.ts';
import { CustomerPage, tokenRunningOut } from './customer-page.ts';


/**
 * The end user's session runs out while they connect (a slow sign-in at the provider, an app slow to check a
 * key): the gateway has made the connection all the same. The customer's page (the SDK, iframe mode) learns
 * of it and the end user reads that the app is connected, then that their session is over.
 */
describe('the Connect page when the session runs out during a connect (headless Chromium, SDK in an iframe)', function () {
  this.timeout(120_000);
  const world = new ConnectPageWorld();
  let customer: CustomerPage;
  let browser: Browser;
  let companyName = '';
  /** The provider's sign-in page and the notes app's key check wait until then (the token no longer accepted). */
  let holdUntil = 0;
  const waitHeld = () => new Promise((resolve) => setTimeout(resolve, Math.max(0, holdUntil - Date.now())));

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await world.start();
    customer = await new CustomerPage(world.gw.url).start();
    companyName = (await call(world.gw, 'GET', '/v1/companies')).body.data[0].name;
    const settings = (await call(world.gw, 'GET', '/v2/embedding')).body.data;
    const put = await call(world.gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [customer.origin], enabledApps: settings.enabledApps, theme: settings.theme } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    world.upstream.on('GET /oauth/authorize', async (request) => {
      await waitHeld();
      const back = new URL(request.query.get('redirect_uri')!);
      back.searchParams.set('state', request.query.get('state')!);
      back.searchParams.set('code', 'code-late');
      return { status: 302, headers: { location: back.toString() } };
    });
    world.upstream.on('POST /oauth/token', () => ({ body: { access_token: 'access-late', refresh_token: 'refresh-late', expires_in: 3600, token_type: 'Bearer' } }));
    world.upstream.on('GET /notes/me', async () => {
      await waitHeld();
      return { body: { workspace: { name: 'Late workspace' } } };
    });
  });
  after(async () => {
    await browser?.close();
    await customer?.stop();
    await world.stop();
  });

  const text = (frame: Frame, selector: string) => frame.$eval(selector, (e) => (e as unknown as { innerText: string }).innerText.trim());
  const connectionsOf = async (appSlug: string) => ((await call(world.gw, 'GET', '/v2/connections?limit=1000')).body.data as { id: string; appSlug: string }[]).filter((c) => c.appSlug === appSlug).map((c) => c.id);

  /** The customer page, the SDK's iframe opened with a token that runs out in `validForMs`. */
  async function openWithRunningOutToken(validForMs: number): Promise<{ page: Page; frame: Frame }> {
    const { token, refusedFrom } = await tokenRunningOut(world.gw, world.adaId, validForMs);
    holdUntil = refusedFrom;
    const page = await browser.newPage();
    await page.setViewport(DESKTOP);
    await page.evaluateOnNewDocument('globalThis.__name = (fn) => fn;');
    await page.goto(`${customer.origin}/`, { waitUntil: 'load' });
    await page.evaluate((value) => void (globalThis as any).openConnect(value, { closeOnConnect: false }), token);
    const frame = await page.waitForFrame((f) => f.url().startsWith(`${world.gw.url}/connect`));
    await frame.waitForSelector('#apps-section:not([hidden])');
    return { page, frame };
  }

  async function expectConnectedThenExpired(page: Page, frame: Frame, id: string, appSlug: string, appName: string): Promise<void> {
    const outcome = await eventually(() => page.evaluate(() => (globalThis as any).outcome), (o) => o !== null, 'open() settled', 30_000);
    expect(outcome, 'the SDK resolves with the connection the gateway made').to.deep.include({ ok: true });
    expect(outcome.result.type).to.equal('connected');
    expect(outcome.result.connection).to.include({ id, appSlug });
    const types = await page.evaluate(() => (globalThis as any).events.map((e: { type: string }) => e.type));
    // The SDK settles on connected and stops listening: the page's later error changes nothing for the customer.
    expect(types.filter((t: string) => t !== 'resize')).to.deep.equal(['ready', 'connected']);
    // What the end user reads: the app is connected, then that the session is over.
    await frame.waitForSelector('#alert:not([hidden])', { timeout: 10_000 });
    await frame.waitForFunction((expected: string) => (globalThis as any).document.querySelector('#status').innerText.trim() === expected, { timeout: 10_000 }, `${appName} is connected.`);
    expect(await text(frame, '#alert')).to.equal(`Your session has expired: go back to ${companyName} and open this page again.`);
    expect(await frame.$eval('dialog', (d: any) => d.open), 'the step closed').to.equal(false);
  }

  it('an OAuth sign-in that ends after the token expired: connected reaches the SDK, the end user reads "connected", then the session message', async () => {
    const before = await connectionsOf('crm');
    const { page, frame } = await openWithRunningOutToken(8_000);
    try {
      await frame.click('button[data-app="crm"]');
      await frame.waitForSelector('dialog[open] form');
      await frame.click('dialog button[type="submit"]');
      const [made] = await eventually(async () => (await connectionsOf('crm')).filter((id) => !before.includes(id)), (ids) => ids.length === 1, 'the connection the callback made', 30_000);
      expect(Date.now(), 'the token was no longer accepted when the sign-in ended').to.be.greaterThan(holdUntil);
      await expectConnectedThenExpired(page, frame, made!, 'crm', 'Contact Cloud');
    } finally {
      await page.close();
    }
  });

  it('a form connect answered after the token expired (the app slow to check the key): connected reaches the SDK, then the session message', async () => {
    const before = await connectionsOf('notes');
    const { page, frame } = await openWithRunningOutToken(6_000);
    try {
      await frame.click('button[data-app="notes"]');
      await frame.waitForSelector('dialog[open] form');
      await frame.type('[name="credentials.apiKey"]', 'nk_latecomer01');
      await frame.select('[name="metadata.region"]', 'eu');
      await frame.click('dialog button[type="submit"]');
      const [made] = await eventually(async () => (await connectionsOf('notes')).filter((id) => !before.includes(id)), (ids) => ids.length === 1, 'the connection the form made', 30_000);
      await expectConnectedThenExpired(page, frame, made!, 'notes', 'Acme Notes');
    } finally {
      await page.close();
    }
  });
});
