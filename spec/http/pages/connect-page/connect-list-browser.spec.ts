import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, launchBrowserOrSkip } from '../../../helpers/browser.ts';
import { call } from '../../../helpers/gateway.ts';
import { ConnectPageWorld } from './connect-page-world.ts';

/** The WCAG contrast ratio of two colours as getComputedStyle writes them (rgb(r, g, b)). */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = css.match(/\d+(\.\d+)?/g)!.slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * The Connect page's list of connections and its look, in a real headless Chromium: every connection listed
 * (not only the newest 100), one to an app the company no longer offers said so and still disconnectable, and a
 * focus ring that shows whatever the company's colour.
 */
describe('the Connect page: the whole list, retired apps, a visible focus ring (headless Chromium)', function () {
  this.timeout(180_000);
  const world = new ConnectPageWorld();
  let browser: Browser;
  let companyName = '';

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await world.start();
    companyName = (await call(world.gw, 'GET', '/v1/companies')).body.data[0].name;
  });
  after(async () => {
    await browser?.close();
    await world.stop();
  });

  const settings = async () => (await call(world.gw, 'GET', '/v2/embedding')).body.data;
  const putSettings = async (changes: Record<string, unknown>) => {
    const now = await settings();
    const put = await call(world.gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: now.allowedOrigins, enabledApps: now.enabledApps, theme: now.theme, ...changes } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
  };
  const rows = (page: Page) => page.$$eval('#connections li', (ls) => ls.length);
  /** Ada's connections to `appSlug` until she has `total` in all, made through the API as the form would. */
  async function connectUntil(total: number, appSlug: string): Promise<void> {
    const token = await world.token();
    const count = async () => (await call({ url: world.gw.url, apiKey: token }, 'GET', '/v2/end-user/connections?fields=id&limit=1000')).body.meta.pagination.totalCount as number;
    let missing = total - (await count());
    while (missing > 0) {
      const batch = Math.min(missing, 25);
      await Promise.all(
        Array.from({ length: batch }, async () => {
          const made = await call({ url: world.gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', { body: { appSlug, credentials: { token: 'tok-listed' } } });
          expect(made.status, JSON.stringify(made.body)).to.equal(201);
        }),
      );
      missing -= batch;
    }
    expect(await count()).to.equal(total);
  }

  for (const [mode, primaryColor] of [
    ['light', '#ffeb3b'],
    ['dark', '#0b1f4a'],
  ] as const) {
    it(`${mode} theme with primary colour ${primaryColor}: the focus ring contrasts at least 3:1 with the card it is drawn on`, async () => {
      await putSettings({ theme: { ...(await settings()).theme, mode, primaryColor } });
      const { page } = await world.openPage(browser, DESKTOP);
      try {
        // Keyboard focus on an app's button (a card): the ring the end user sees around it.
        let reached = '';
        for (let i = 0; i < 40 && reached !== 'notes'; i++) {
          await page.keyboard.press('Tab');
          reached = await page.evaluate(() => (globalThis as any).document.activeElement?.dataset?.app ?? '');
        }
        expect(reached).to.equal('notes');
        const { outline, style, card } = await page.evaluate(() => {
          const focused = (globalThis as any).document.activeElement;
          const computed = (globalThis as any).getComputedStyle(focused);
          return { outline: computed.outlineColor, style: computed.outlineStyle, card: computed.backgroundColor };
        });
        expect(style).to.equal('solid');
        expect(contrast(outline, card), `focus ring ${outline} on card ${card}`).to.be.at.least(3);
      } finally {
        await page.close();
        await putSettings({ theme: { ...(await settings()).theme, mode: 'light', primaryColor: null } });
      }
    });
  }

  it('a connection to an app the company no longer offers: said so in a sentence (no slug, no "?", no "Connected"), and it can be disconnected', async () => {
    const made = await call({ url: world.gw.url, apiKey: await world.token() }, 'POST', '/v2/end-user/connections', { body: { appSlug: 'git-forge', credentials: { token: 'tok-retired' }, name: 'Work' } });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const id = made.body.data.id as string;
    const enabled = (await settings()).enabledApps as string[];
    await putSettings({ enabledApps: enabled.filter((slug) => slug !== 'git-forge') });
    const { page } = await world.openPage(browser, DESKTOP);
    try {
      const row = await page.waitForSelector(`li[data-connection="${id}"]`);
      const shown = await row!.evaluate((e: any) => e.innerText.replace(/\s+/g, ' ').trim());
      expect(shown).to.match(new RegExp(`^An app no longer offered: Work ${companyName} no longer offers this app\\. You can disconnect it\\. Since .* Disconnect$`));
      expect(shown).not.to.include('git-forge').and.not.to.include('?').and.not.to.include('Connected');
      await page.click(`li[data-connection="${id}"] button.secondary`);
      await page.waitForSelector('dialog[open]');
      expect(await page.$eval('#step-title', (e: any) => e.innerText.trim())).to.equal('Disconnect this app?');
      expect(await page.$eval('#step-body', (e: any) => e.innerText)).not.to.include('git-forge');
      await page.click('dialog button.danger');
      await page.waitForFunction((gone: string) => !(globalThis as any).document.querySelector(`li[data-connection="${gone}"]`), {}, id);
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').textContent !== '');
      expect(await page.$eval('#status', (e: any) => e.innerText.trim())).to.equal('The app is disconnected.');
      expect((await call(world.gw, 'GET', `/v2/connections/${id}`)).status).to.equal(404);
    } finally {
      await page.close();
      await putSettings({ enabledApps: enabled });
    }
  });

  it('lists every connection past the first 100; past 1,000 it shows the newest 1,000 and says that older ones are not listed', async () => {
    await connectUntil(150, 'billing-desk');
    let opened = await world.openPage(browser, DESKTOP);
    try {
      await opened.page.waitForSelector('#connections li');
      expect(await rows(opened.page)).to.equal(150);
      expect(await opened.page.$eval('#connections-more', (e: any) => e.hidden)).to.equal(true);
    } finally {
      await opened.page.close();
    }
    await connectUntil(1003, 'billing-desk');
    opened = await world.openPage(browser, DESKTOP);
    try {
      await opened.page.waitForSelector('#connections li');
      expect(await rows(opened.page)).to.equal(1000);
      expect(await opened.page.$eval('#connections-more', (e: any) => (e.hidden ? '' : e.innerText.trim()))).to.equal('Only your 1,000 newest connections are listed here.');
    } finally {
      await opened.page.close();
    }
  });
});
