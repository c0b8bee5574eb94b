import { expect } from 'chai';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { launchBrowserOrSkip, screenshot } from '../../../helpers/browser.ts';
import { call } from '../../../helpers/gateway.ts';
import { ConnectPageWorld } from './connect-page-world.ts';
import { CustomerPage } from './customer-page.ts';

/** A laptop's window: shorter than the Connect page once it lists many connections. */
const VIEWPORT = { width: 900, height: 700 };

/**
 * The Connect page in the SDK's iframe, grown to its content's height (thousands of pixels with many
 * connections): a step (connect, disconnect) opens where the end user is, inside the customer's visible
 * window, not in the middle of the tall frame.
 */
describe('the Connect page in an iframe: a step opens where the end user can see it (headless Chromium, SDK)', function () {
  this.timeout(120_000);
  const world = new ConnectPageWorld();
  let customer: CustomerPage;
  let browser: Browser;
  const made: string[] = [];

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await world.start();
    customer = await new CustomerPage(world.gw.url, 400).start();
    const settings = (await call(world.gw, 'GET', '/v2/embedding')).body.data;
    const put = await call(world.gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [customer.origin], enabledApps: settings.enabledApps, theme: settings.theme } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    const token = await world.token();
    for (let i = 0; i < 30; i++) {
      const answer = await call({ url: world.gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', { body: { appSlug: 'calendar-hub', credentials: { token: `tok-${i}` }, name: `Calendar ${i + 1}` } });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      made.push(answer.body.data.id);
    }
  });
  after(async () => {
    await browser?.close();
    await customer?.stop();
    await world.stop();
  });

  async function customerWithFrame(): Promise<{ page: Page; frame: Frame }> {
    const page = await browser.newPage();
    await page.setViewport(VIEWPORT);
    await page.evaluateOnNewDocument('globalThis.__name = (fn) => fn;');
    await page.goto(`${customer.origin}/`, { waitUntil: 'load' });
    await page.evaluate((token) => void (globalThis as any).openConnect(token), await world.token());
    const frame = await page.waitForFrame((f) => f.url().startsWith(`${world.gw.url}/connect`));
    await frame.waitForSelector('#apps-section:not([hidden])');
    // The SDK has grown the frame to the page's content: far taller than the window.
    await page.waitForFunction((min: number) => (globalThis as any).document.querySelector('#connect-frame iframe').getBoundingClientRect().height > min, {}, VIEWPORT.height * 3);
    return { page, frame };
  }

  /** The open dialog's box in the customer's window (top-level viewport coordinates), and the window's height. */
  async function dialogInWindow(page: Page, frame: Frame): Promise<{ top: number; bottom: number; height: number; window: number }> {
    await frame.waitForSelector('dialog[open]');
    // Let any scrolling the page or the SDK does settle.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const outer = await page.$eval('#connect-frame iframe', (f: any) => f.getBoundingClientRect().top);
    const inner = await frame.$eval('dialog', (d: any) => {
      const r = d.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: r.height };
    });
    return { top: Math.round(outer + inner.top), bottom: Math.round(outer + inner.bottom), height: Math.round(inner.height), window: await page.evaluate(() => (globalThis as any).innerHeight) };
  }

  const expectVisible = (box: { top: number; bottom: number; height: number; window: number }, what: string) => {
    expect(box.height, `${what}: the dialog has a size`).to.be.greaterThan(100);
    expect(box.top, `${what}: the dialog's top in the window (${JSON.stringify(box)})`).to.be.at.least(0);
    expect(box.bottom, `${what}: the dialog's bottom in the window (${JSON.stringify(box)})`).to.be.at.most(box.window);
  };

  it('the connect step of an app at the bottom of the tall frame opens inside the customer\'s window', async () => {
    const { page, frame } = await customerWithFrame();
    try {
      // The last app: the end user scrolled the customer's page down to it.
      await frame.click('button[data-app="helpdesk-pro"]');
      const box = await dialogInWindow(page, frame);
      await screenshot(page, 'connect-iframe-dialog-bottom');
      expectVisible(box, 'connect Helpdesk Pro');
      expect(await frame.$eval('#step-title', (e: any) => e.innerText.trim())).to.equal('Connect Helpdesk Pro');
      await frame.click('#step-close');
      await frame.waitForSelector('dialog:not([open])');
    } finally {
      await page.close();
    }
  });

  it('the disconnect step of a connection in the middle of the list, and the connect step of an app after scrolling back up, open inside the window', async () => {
    const { page, frame } = await customerWithFrame();
    try {
      await frame.click(`li[data-connection="${made[12]}"] button.secondary`);
      expectVisible(await dialogInWindow(page, frame), 'disconnect Calendar 13');
      expect(await frame.$eval('#step-title', (e: any) => e.innerText.trim())).to.equal('Disconnect Calendar Hub?');
      await page.keyboard.press('Escape');
      await frame.waitForSelector('dialog:not([open])');
      await frame.click('button[data-app="notes"]');
      expectVisible(await dialogInWindow(page, frame), 'connect Acme Notes');
    } finally {
      await page.close();
    }
  });
});
