import { expect } from 'chai';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot, watchedPage, type WatchedPage } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page-choice');
const DEMO = { tenantId: '45e4708e-d862-4111-ab3a-dd8cd03913e1', tenantName: 'Demo Company (UK)' };
const MAPLE = { tenantId: '7c1bd4b2-3bb6-4c4f-a1a6-2f1e0d9c8b7a', tenantName: 'Maple Florists Ltd' };

/**
 * The Connect page's part in values a provider gives at authorization, in a
 * real headless Chromium: a value the OAuth URLs need is asked before the
 * redirect (a Shopify-like store), a value the authorization gives is not
 * asked at all, and when the sign-in reaches several organisations (a
 * Xero-like app) the end user chooses one in a step of its own, with the
 * keyboard alone.
 */
describe('the Connect page: values asked before the redirect, and the choice of account after it (headless Chromium)', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let browser: Browser;
  let adaId: string;

  const freshToken = async (): Promise<string> => (await call(gw, 'GET', `/v1/users/${adaId}/token`)).body.token;
  const mine = async () => (await call({ url: gw.url, apiKey: await freshToken() }, 'GET', '/v2/end-user/connections')).body.data as { id: string; appSlug: string; metadata: Record<string, string> }[];
  const text = (page: Page, selector: string) => page.$eval(selector, (e) => (e as unknown as { innerText: string }).innerText.trim());
  const focused = (page: Page) =>
    page.evaluate(() => {
      const e = (globalThis as any).document.activeElement;
      return `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}|${(e.innerText ?? '').trim().split('\n')[0]}`;
    });

  /** The provider's authorize page approves at once: back to the redirect_uri with a code. */
  const approve = (request: { query: URLSearchParams }) => {
    const back = new URL(request.query.get('redirect_uri')!);
    back.searchParams.set('state', request.query.get('state')!);
    back.searchParams.set('code', 'code-1');
    return { status: 302, headers: { location: back.toString() } };
  };

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    adaId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada Lovelace' } })).body.data.userId;
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['ledgers', 'shops'] } })).status).to.equal(200);
    for (const app of ['ledgers', 'shops']) {
      const configured = await call(gw, 'PUT', `/v2/apps/${app}/configuration`, { body: { clientId: `${app}-client`, clientSecret: `${app}-secret`, redirectUri: `${gw.url}/v2/connect/callback` } });
      expect(configured.status, JSON.stringify(configured.body)).to.equal(200);
    }
    upstream.on('GET /oauth/authorize', approve);
    upstream.on('GET /johns-apparel/admin/oauth/authorize', approve);
    upstream.on('POST /oauth/token', () => ({ body: { access_token: 'ledgers-access', refresh_token: 'ledgers-refresh', expires_in: 1800 } }));
    upstream.on('POST /johns-apparel/admin/oauth/access_token', () => ({ body: { access_token: 'shpua_access', scope: 'read_customers' } }));
    upstream.on('GET /connections', () => ({ body: [DEMO, MAPLE] }));
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  async function openPage(viewport: { width: number; height: number } = DESKTOP): Promise<WatchedPage> {
    const watched = await watchedPage(browser, gw.url, viewport);
    await watched.page.goto(`${gw.url}/connect#token=${await freshToken()}`, { waitUntil: 'load' });
    await watched.page.waitForSelector('#apps-section:not([hidden])');
    return watched;
  }
  const expectClean = (watched: WatchedPage) => {
    expect(watched.pageErrors, 'uncaught exceptions').to.deep.equal([]);
    expect(watched.consoleErrors, 'console errors (a CSP refusal is one)').to.deep.equal([]);
    expect(watched.foreignRequests, 'requests to another origin').to.deep.equal([]);
  };

  it('asks the store before the redirect (the OAuth URLs need it) and sends the browser to that store', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      await page.click('button[data-app="shops"]');
      await page.waitForSelector('dialog[open] form');
      const fields = await page.$$eval('dialog input, dialog select', (inputs) => inputs.map((i: any) => ({ name: i.name, label: i.labels[0]?.innerText.trim() })));
      expect(fields).to.deep.equal([{ name: 'metadata.shop', label: 'Store subdomain (required)' }]);
      await page.type('[name="metadata.shop"]', 'johns-apparel');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog:not([open])', { timeout: 30_000 });
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').innerText.includes('Shops is connected.'));
      expect(upstream.calls('GET /johns-apparel/admin/oauth/authorize')).to.have.length(1);
      const shop = (await mine()).find((c) => c.appSlug === 'shops')!;
      expect(shop.metadata).to.deep.equal({ shop: 'johns-apparel' });
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('does not ask what the authorization gives, then offers the organisations to choose from, with the keyboard alone', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      await page.click('button[data-app="ledgers"]');
      await page.waitForSelector('dialog[open] form');
      expect(await page.$$eval('dialog input, dialog select', (inputs) => inputs.length), 'tenantId comes from the provider: no field for it').to.equal(0);
      await page.keyboard.press('Tab'); // Close
      await page.keyboard.press('Tab');
      expect(await focused(page)).to.equal('button|Continue to Ledgers');
      await page.keyboard.press('Enter');

      await page.waitForSelector('dialog[open] form.choose-account', { timeout: 30_000 });
      expect(await text(page, '#step-title')).to.equal('Choose your Ledgers account');
      expect(await focused(page)).to.equal('h2#step-title|Choose your Ledgers account');
      expect(await text(page, 'dialog form.choose-account > p')).to.equal('Your Ledgers sign-in gives access to 2 accounts. Choose the one to connect.');
      const options = await page.$$eval('dialog input[type="radio"]', (inputs) => inputs.map((i: any) => ({ label: i.labels[0]?.innerText.trim(), checked: i.checked })));
      expect(options).to.deep.equal([
        { label: DEMO.tenantName, checked: true },
        { label: MAPLE.tenantName, checked: false },
      ]);
      expect(await text(page, 'dialog legend')).to.equal('Ledgers account');
      await screenshot(page, 'connect-choose-account-1280');
      await page.keyboard.press('Tab'); // Close
      await page.keyboard.press('Tab');
      expect(await focused(page)).to.equal('input#choice-1|');
      await page.keyboard.press('ArrowDown');
      expect(await focused(page)).to.equal('input#choice-2|');
      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog:not([open])', { timeout: 30_000 });
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').innerText.includes('Ledgers is connected.'));
      const ledgers = (await mine()).find((c) => c.appSlug === 'ledgers')!;
      expect(ledgers.metadata).to.deep.equal({ tenantId: MAPLE.tenantId });
      await page.waitForSelector(`li[data-connection="${ledgers.id}"]`);
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('a choice made meanwhile in another window: the step says it can no longer be finished here, not that a connection is gone', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      await page.click('button[data-app="ledgers"]');
      await page.waitForSelector('dialog[open] form');
      await page.click('dialog button[type="submit"]');
      const form = await page.waitForSelector('dialog[open] form.choose-account', { timeout: 30_000 });
      const choiceId = await form!.evaluate((f: any) => f.dataset.choice);
      const elsewhere = await call({ url: gw.url, apiKey: await freshToken() }, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
      expect(elsewhere.status, JSON.stringify(elsewhere.body)).to.equal(200);
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog .form-errors:not([hidden])');
      expect(await text(page, 'dialog .form-errors')).to.equal(
        'This Ledgers sign-in can no longer be finished here: it was started in another window, finished already, or took too long. If Ledgers is not in your list, start connecting it again.',
      );
      expect(watched.pageErrors, 'uncaught exceptions').to.deep.equal([]);
    } finally {
      await page.close();
    }
  });

  it('fits a phone: the choice step has no horizontal scrolling', async () => {
    const watched = await openPage(PHONE);
    const { page } = watched;
    try {
      await page.click('button[data-app="ledgers"]');
      await page.waitForSelector('dialog[open] form');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog[open] form.choose-account', { timeout: 30_000 });
      expect((await horizontalOverflow(page)).overflow).to.equal(0);
      await screenshot(page, 'connect-choose-account-375');
      expectClean(watched);
    } finally {
      await page.close();
    }
  });
});
