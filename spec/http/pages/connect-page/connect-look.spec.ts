import { expect } from 'chai';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';

/** Twelve of the catalogue's apps, each with a key or token auth (no OAuth client is configured here). */
const ENABLED = ['activecampaign', 'airtable', 'asana', 'bamboohr', 'brevo', 'chargebee', 'demo-todos', 'freshdesk', 'github', 'gitlab', 'intercom', 'mailgun'];

/**
 * The Connect page as a product, with the gateway's own catalogue (definitions/): icons, descriptions, the
 * user's connections first, a search once there are more than eight apps, no empty band under the title.
 */
describe('the Connect page looks like a product: icons, search, connections first (headless Chromium)', function () {
  this.timeout(120_000);
  let gw: TestGateway;
  let browser: Browser;
  let token: string;

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    gw = await startTestGateway({ DEFINITIONS_DIR: path.join(ROOT, 'definitions') });
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada Lovelace' } })).body.data.userId;
    const put = await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ENABLED } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
    // One connection, made through the API as the form would.
    const made = await call({ url: gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', { body: { appSlug: 'demo-todos', credentials: { token: 'demo-token' } } });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  async function openPage(viewport: { width: number; height: number }): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport(viewport);
    await page.goto(`${gw.url}/connect#token=${token}`, { waitUntil: 'load' });
    await page.waitForSelector('#apps-section:not([hidden])');
    await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('.tile img')].every((i: any) => i.complete));
    return page;
  }
  const shownApps = (page: Page) => page.$$eval('#apps button', (bs) => bs.map((b: any) => b.dataset.app));

  for (const viewport of [PHONE, DESKTOP]) {
    it(`at ${viewport.width} px: the user's connections first, every app with its icon and description, no empty band, no sideways scroll`, async () => {
      const page = await openPage(viewport);
      try {
        const order = await page.$$eval('main section:not([hidden])', (ss) => ss.map((s: any) => s.id));
        expect(order).to.deep.equal(['connections-section', 'apps-section']);
        expect(await shownApps(page)).to.deep.equal(ENABLED);
        const broken = await page.$$eval('.tile img', (is) => is.filter((i: any) => i.naturalWidth === 0).map((i: any) => i.src));
        expect(broken, 'icons that did not load').to.deep.equal([]);
        const described = await page.$$eval('#apps .description', (ds) => ds.length);
        expect(described, 'every catalogue app has a description').to.equal(ENABLED.length);
        // The first list starts right under the title: no band of empty space between them.
        const gap = await page.evaluate(() => {
          const d = (globalThis as any).document;
          return d.querySelector('main section:not([hidden]) h2').getBoundingClientRect().top - d.querySelector('#signed-in').getBoundingClientRect().bottom;
        });
        expect(gap, 'space between "Signed in" and the first heading').to.be.below(40);
        expect((await horizontalOverflow(page)).overflow).to.equal(0);
        await screenshot(page, `connect-catalogue-${viewport.width}`);
      } finally {
        await page.close();
      }
    });
  }

  it('searches once there are more than eight apps: by name, description or category, with the count announced', async () => {
    const page = await openPage(DESKTOP);
    try {
      expect(await page.$eval('#search-box', (e: any) => e.hidden)).to.equal(false);
      expect(await page.$eval('#search', (e: any) => e.labels[0].innerText.trim())).to.equal('Search apps');
      await page.type('#search', 'git');
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#apps button').length === 2);
      expect(await shownApps(page)).to.deep.equal(['github', 'gitlab']);
      expect(await page.$eval('#search-count', (e: any) => e.innerText.trim())).to.equal('2 apps match.');
      await screenshot(page, 'connect-search-1280');
      await page.$eval('#search', (e: any) => (e.value = ''));
      await page.type('#search', 'zzzz-nothing');
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#apps button').length === 0);
      expect(await page.$eval('#search-count', (e: any) => e.innerText.trim())).to.equal('No app matches your search.');
    } finally {
      await page.close();
    }
  });

  it('takes the company\'s theme from PUT /v2/embedding: its colour on the buttons (with contrasting text), dark, or the browser\'s setting', async () => {
    const style = (page: Page) =>
      page.evaluate(() => {
        const d = (globalThis as any).document;
        const g = globalThis as any;
        return { theme: d.documentElement.dataset.theme, button: g.getComputedStyle(d.querySelector('#connections .button')).borderColor, body: g.getComputedStyle(d.documentElement).backgroundColor };
      });
    const put = await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ENABLED, theme: { primaryColor: '#FFB300', mode: 'dark' } } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.data.theme).to.deep.equal({ primaryColor: '#ffb300', mode: 'dark', logoUrl: null });
    expect((await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/session')).body.data.theme).to.deep.equal({ primaryColor: '#ffb300', mode: 'dark', logoUrl: null });
    let page = await openPage(PHONE);
    try {
      expect(await style(page)).to.deep.equal({ theme: 'dark', button: 'rgb(255, 179, 0)', body: 'rgb(20, 23, 28)' });
      // A light colour gets black text on it.
      expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).getPropertyValue('--accent-ink').trim())).to.equal('#000000');
      await screenshot(page, 'connect-theme-dark-375');
    } finally {
      await page.close();
    }
    const bad = await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ENABLED, theme: { primaryColor: 'red; background: url(x)' } } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.problems[0].field).to.equal('theme.primaryColor');

    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ENABLED, theme: { primaryColor: '#7b1fa2', mode: 'system' } } });
    page = await browser.newPage();
    try {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      await page.setViewport(DESKTOP);
      await page.goto(`${gw.url}/connect#token=${token}`, { waitUntil: 'load' });
      await page.waitForSelector('#connections .button');
      expect(await style(page)).to.deep.equal({ theme: 'system', button: 'rgb(123, 31, 162)', body: 'rgb(20, 23, 28)' });
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
      expect((await style(page)).body).to.equal('rgb(246, 247, 249)');
      await screenshot(page, 'connect-theme-system-light-1280');
    } finally {
      await page.close();
    }
  });
});
