import { expect } from 'chai';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, launchBrowserOrSkip, PHONE, screenshot } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');

/**
 * Every way to sign in, and OAuth only once the company configured its client: crm signs in with OAuth only,
 * hub with OAuth or a personal token, notes with an API key.
 */
describe('the Connect page offers every auth of an app, OAuth only when configured (headless Chromium)', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let browser: Browser;
  let token: string;

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  const enable = () => call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['notes', 'crm', 'hub'] } });
  const configure = (slug: string) => call(gw, 'PUT', `/v2/apps/${slug}/configuration`, { body: { clientId: `${slug}-client`, clientSecret: 's', redirectUri: `${gw.url}/v2/connect/callback` } });
  async function openPage(viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport(viewport);
    await page.goto(`${gw.url}/connect#token=${token}`, { waitUntil: 'load' });
    await page.waitForSelector('#apps-section:not([hidden])');
    return page;
  }
  const appButtons = (page: Page) => page.$$eval('#apps button', (bs) => bs.map((b: any) => b.dataset.app));
  const text = (page: Page, selector: string) => page.$eval(selector, (e: any) => e.innerText.trim().replace(/\s+/g, ' '));

  it('before any OAuth client is configured: PUT /v2/embedding warns about the OAuth-only app, the page leaves it out and offers hub\'s token only', async () => {
    const answer = await enable();
    expect(answer.status).to.equal(200);
    expect(answer.body.data.enabledApps, 'saved all the same').to.deep.equal(['notes', 'crm', 'hub']);
    expect(answer.body.data.warnings).to.deep.equal([
      {
        field: 'enabledApps[1]',
        rule: 'oauthNotConfigured',
        message: 'app "crm" signs in only with OAuth and its client is not configured for your company: end users will not see it until PUT /v2/apps/crm/configuration',
      },
    ]);
    const apps = (await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/apps')).body.data as { slug: string; auths: { id: string }[] }[];
    expect(apps.map((a) => [a.slug, a.auths.map((x) => x.id)])).to.deep.equal([
      ['notes', ['api-key']],
      ['hub', ['personal-token']],
    ]);

    const page = await openPage();
    try {
      expect(await appButtons(page)).to.deep.equal(['notes', 'hub']);
      await page.click('button[data-app="hub"]');
      await page.waitForSelector('dialog[open] form');
      expect(await page.$$eval('dialog input', (is) => is.map((i: any) => i.name))).to.deep.equal(['credentials.token']);
      expect(await text(page, 'dialog .help')).to.equal('A token you create in Ticket Hub under Settings, Developer, Personal tokens.');
    } finally {
      await page.close();
    }
  });

  it('once configured: no warning; hub asks which way, by each auth\'s name and description; OAuth lists its scopes before the redirect', async () => {
    expect((await configure('crm')).status).to.equal(200);
    expect((await configure('hub')).status).to.equal(200);
    expect((await enable()).body.data.warnings).to.deep.equal([]);

    const page = await openPage(PHONE);
    try {
      expect(await appButtons(page)).to.deep.equal(['notes', 'crm', 'hub']);
      await page.click('button[data-app="hub"]');
      await page.waitForSelector('dialog[open] .choices');
      expect(await text(page, '#step-title')).to.equal('Connect Ticket Hub');
      const choices = await page.$$eval('dialog .choice', (bs) => bs.map((b: any) => b.innerText.trim().replace(/\s+/g, ' ')));
      expect(choices).to.deep.equal([
        'Sign in with Ticket Hub Allow access from your Ticket Hub account; nothing to copy.',
        'Personal access token A token you create in Ticket Hub under Settings, Developer, Personal tokens.',
      ]);
      await screenshot(page, 'connect-choose-auth-375');

      await page.click('dialog .choice[data-auth="oauth2"]');
      await page.waitForSelector('dialog[open] .scopes');
      expect(await text(page, 'dialog .scopes')).to.equal('Ticket Hub will ask you to allow: tickets.read tickets.write');
      expect(await page.evaluate(() => (globalThis as any).document.activeElement.id), 'focus on the step title').to.equal('step-title');
      await screenshot(page, 'connect-oauth-scopes-375');
      await page.keyboard.press('Escape');
      await page.waitForSelector('dialog:not([open])');

      // The token way connects for real: the connection names the auth chosen.
      await page.click('button[data-app="hub"]');
      await page.waitForSelector('dialog[open] .choices');
      await page.click('dialog .choice[data-auth="personal-token"]');
      await page.waitForSelector('dialog[open] form [name="credentials.token"]');
      await page.type('[name="credentials.token"]', 'hub-personal-token-1');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog:not([open])');
      const mine = (await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/connections')).body.data as { appSlug: string; authId: string }[];
      expect(mine.map((c) => [c.appSlug, c.authId])).to.deep.equal([['hub', 'personal-token']]);
    } finally {
      await page.close();
    }
  });
});
