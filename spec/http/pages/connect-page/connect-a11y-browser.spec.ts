import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot } from '../../../helpers/browser.ts';
import { call } from '../../../helpers/gateway.ts';
import { KEYS, ConnectPageWorld } from './connect-page-world.ts';

/** axe-core (a devDependency, pinned), run inside the page through the DevTools protocol (the page's CSP is not loosened for it). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Runs axe on the whole document (the open dialog included): its violations, each with the elements at fault. */
async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => typeof (globalThis as any).axe === 'object'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const results = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return results.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
}

/**
 * Every state of the Connect page, in each language, at 375 and 1280 px, checked with axe-core in a real
 * Chromium (0 violations) and saved as a screenshot in .tmp/screenshots/ (connect-a11y-<lang>-<width>-<state>.png);
 * then the main flow with the keyboard alone.
 */
describe('the Connect page is accessible in every state, language and width: axe-core finds nothing (headless Chromium)', function () {
  this.timeout(600_000);
  const world = new ConnectPageWorld();
  let browser: Browser;

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await world.start();
  });
  after(async () => {
    await browser?.close();
    await world.stop();
  });

  const waitOpen = (page: Page, selector: string) => page.waitForSelector(`dialog[open] ${selector}`);
  async function closeStep(page: Page): Promise<void> {
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog:not([open])');
  }

  for (const language of ['en', 'de', 'fr']) {
    for (const viewport of [PHONE, DESKTOP]) {
      it(`in ${language} at ${viewport.width} px: list, search, choice of auths, OAuth scopes, form with help, form errors, verifying, refused key, reconnect, disconnect, OAuth error, expired session`, async () => {
        const found: string[] = [];
        const check = async (page: Page, state: string) => {
          await screenshot(page, `connect-a11y-${language}-${viewport.width}-${state}`);
          for (const v of await axeViolations(page)) found.push(`${state}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.join(', ')}`);
          const { overflow, widest } = await horizontalOverflow(page);
          if (overflow > 0) found.push(`${state}: scrolls sideways by ${overflow} px (${widest})`);
        };
        const { page } = await world.openPage(browser, viewport, { lang: language });
        try {
          // The list: the logo, two accounts told apart by their labels, one that needs reconnecting.
          await page.waitForSelector(`li[data-connection="${world.connections.stale}"] .badge.needs_reauthorization`);
          await check(page, 'list');

          await page.type('#search', 'Hub');
          await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#apps button').length === 2);
          await check(page, 'search');
          await page.$eval('#search', (e: any) => {
            e.value = '';
            e.dispatchEvent(new Event('input'));
          });

          await page.click('button[data-app="hub"]');
          await waitOpen(page, '.choices');
          await check(page, 'choice');
          await page.click('dialog .choice[data-auth="oauth2"]');
          await waitOpen(page, '.scopes');
          await check(page, 'oauth-scopes');
          await closeStep(page);

          await page.click('button[data-app="notes"]');
          await waitOpen(page, '.help a');
          await check(page, 'form');
          await page.type('[name="credentials.apiKey"]', 'not-a-key');
          await page.click('dialog button[type="submit"]');
          await page.waitForSelector('#field-credentials-apiKey-error:not([hidden])');
          await check(page, 'form-errors');

          // A key the app takes its time to check: the form says so meanwhile, then shows the app's refusal.
          world.holdSlow();
          await page.$eval('[name="credentials.apiKey"]', (i: any) => (i.value = ''));
          await page.type('[name="credentials.apiKey"]', KEYS.slow);
          await page.select('[name="metadata.region"]', 'eu');
          await page.click('dialog button[type="submit"]');
          await waitOpen(page, '.checking:not([hidden])');
          expect(await page.$eval('dialog button[type="submit"]', (b: any) => [b.disabled, b.getAttribute('aria-busy')])).to.deep.equal([true, 'true']);
          await check(page, 'verifying');
          world.releaseSlow();
          await page.waitForSelector('dialog .checking[hidden]');
          await page.waitForSelector('#field-credentials-apiKey-error:not([hidden])');
          await check(page, 'key-refused');
          await closeStep(page);

          await page.click(`li[data-connection="${world.connections.stale}"] button.button:not(.secondary)`);
          await waitOpen(page, 'form');
          await check(page, 'reconnect');
          await closeStep(page);

          await page.click(`li[data-connection="${world.connections.globex}"] button.secondary`);
          await waitOpen(page, 'button.danger');
          await check(page, 'disconnect');
          await closeStep(page);

          // A sign-in that came back refused (as the return page leaves it after a sign-in in this window).
          await page.evaluate((resume: string) => {
            (globalThis as any).sessionStorage.setItem('gateway-connect-resume', resume);
            (globalThis as any).sessionStorage.setItem('gateway-connect-oauth-outcome', JSON.stringify({ error: 'token_exchange_failed', description: 'the token endpoint refused' }));
          }, JSON.stringify({ token: await world.token(), openerOrigin: null, app: 'crm', reconnect: null, language }));
          await page.goto(`${world.gw.url}/connect`, { waitUntil: 'load' });
          await page.waitForSelector('#alert:not([hidden])');
          await page.waitForSelector('#apps-section:not([hidden])');
          await check(page, 'oauth-error');

          // An expired or refused token: the page says so and shows nothing else.
          await page.goto(`${world.gw.url}/connect?lang=${language}#token=not-a-token`, { waitUntil: 'load' });
          await page.waitForSelector('#alert:not([hidden])');
          await check(page, 'session-expired');
        } finally {
          await page.close();
        }
        expect(found, 'accessibility problems').to.deep.equal([]);
      });
    }
  }

  it('with the company\'s colour, a light one in the dark theme and in the light theme: the list and the form have no violations either', async () => {
    const settings = (await call(world.gw, 'GET', '/v2/embedding')).body.data;
    const found: string[] = [];
    try {
      for (const mode of ['dark', 'light']) {
        const put = await call(world.gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: settings.allowedOrigins, enabledApps: settings.enabledApps, theme: { mode, primaryColor: '#ffb300', logoUrl: settings.theme.logoUrl } } });
        expect(put.status).to.equal(200);
        const { page } = await world.openPage(browser, PHONE);
        try {
          for (const v of await axeViolations(page)) found.push(`${mode} list: ${v.id} ${v.help}: ${v.nodes.join(', ')}`);
          await screenshot(page, `connect-a11y-en-375-${mode}-amber-list`);
          await page.click('button[data-app="notes"]');
          await waitOpen(page, '.help a');
          for (const v of await axeViolations(page)) found.push(`${mode} form: ${v.id} ${v.help}: ${v.nodes.join(', ')}`);
          await screenshot(page, `connect-a11y-en-375-${mode}-amber-form`);
        } finally {
          await page.close();
        }
      }
    } finally {
      await call(world.gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: settings.allowedOrigins, enabledApps: settings.enabledApps, theme: settings.theme } });
    }
    expect(found).to.deep.equal([]);
  });

  it('with the keyboard alone: Tab to an app, Enter, Tab to the way and Enter, reach the help link, type the token, Enter connects, focus comes back', async () => {
    const { page } = await world.openPage(browser, PHONE);
    const focused = () => page.evaluate(() => {
      const e = (globalThis as any).document.activeElement;
      return `${e.tagName.toLowerCase()}${e.dataset.app ? `[${e.dataset.app}]` : ''}${e.dataset.auth ? `[${e.dataset.auth}]` : ''}${e.id ? `#${e.id}` : ''}`;
    });
    const tabTo = async (target: string, limit = 60) => {
      for (let i = 0; i < limit; i++) {
        if ((await focused()) === target) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${target} (last: ${await focused()})`);
    };
    try {
      // The first Tab reaches the skip link.
      await page.keyboard.press('Tab');
      expect(await focused()).to.equal('a');
      await tabTo('button[hub]');
      await page.keyboard.press('Enter');
      await waitOpen(page, '.choices');
      expect(await focused()).to.equal('h2#step-title');
      await tabTo('button[personal-token]', 10);
      await page.keyboard.press('Enter');
      await waitOpen(page, '[name="credentials.token"]');
      expect(await focused()).to.equal('h2#step-title');
      await tabTo('input#field-credentials-token', 10);
      await page.keyboard.type('hub-token-keyboard');
      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog:not([open])');
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').innerText.includes('Ticket Hub'));
      expect(await focused(), 'focus back on the app that opened the step').to.equal('button[hub]');

      // The notes form (the app before it): its help link is reached with Tab, before the fields.
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
      expect(await focused()).to.equal('button[notes]');
      await page.keyboard.press('Enter');
      await waitOpen(page, '.help a');
      await tabTo('a', 4);
      expect(await page.evaluate(() => (globalThis as any).document.activeElement.closest('.help') !== null)).to.equal(true);
      await page.keyboard.press('Escape');
      await page.waitForSelector('dialog:not([open])');
      expect(await focused()).to.equal('button[notes]');
    } finally {
      await page.close();
    }
  });
});
