import { expect } from 'chai';
import path from 'node:path';
import type { Browser, ConsoleMessage, Page } from 'puppeteer-core';
import { launchBrowserOrSkip, PHONE } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');
const DEVELOPER_MESSAGE = 'app "crm" is not configured: PUT /v2/apps/crm/configuration first';

/**
 * The end user reads a sentence; the developer who opens the browser's console reads why: the code and the API's
 * own message of every refusal the page words (and a sign-in's error and description). Before, a page opened
 * directly (#token=, no SDK to post the error to) and every refusal that is not fatal (a form, a sign-in) left the
 * developer nothing: the sentence was all there was.
 */
describe('the Connect page tells the developer, in the console, what it words for the end user', function () {
  this.timeout(180_000);
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
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada Lovelace' } })).body.data.userId;
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['notes', 'crm'] } });
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'c', clientSecret: 's', redirectUri: `${gw.url}/v2/connect/callback` } });
    token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  /** A page whose requests to `pathname` (and `method`) get the error envelope; its console warnings collected. */
  async function pageRefusing(pathname: string, method: string, answer: { code: string; status: number }): Promise<{ page: Page; warnings: string[] }> {
    const page = await browser.newPage();
    const warnings: string[] = [];
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'warn') warnings.push(message.text());
    });
    await page.setViewport(PHONE);
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (new URL(request.url()).pathname !== pathname || request.method() !== method) return void request.continue();
      void request.respond({ status: answer.status, contentType: 'application/json', body: JSON.stringify({ success: false, error: { code: answer.code, message: DEVELOPER_MESSAGE } }) });
    });
    return { page, warnings };
  }

  it('a refusal of the page load (opened directly: no SDK to tell) is in the console with its code, status and message', async () => {
    const { page, warnings } = await pageRefusing('/v2/end-user/apps', 'GET', { code: 'INTERNAL_ERROR', status: 500 });
    try {
      await page.goto(`${gw.url}/connect#token=${token}`, { waitUntil: 'load' });
      await page.waitForSelector('#alert:not([hidden])');
      expect(await page.$eval('#alert', (e: any) => e.innerText)).not.to.include('INTERNAL_ERROR');
      expect(warnings).to.include(`Connect page: GET /v2/end-user/apps answered 500 INTERNAL_ERROR: ${DEVELOPER_MESSAGE}`);
    } finally {
      await page.close();
    }
  });

  it('a refused connect form is in the console too', async () => {
    const { page, warnings } = await pageRefusing('/v2/end-user/connections', 'POST', { code: 'APP_NOT_CONFIGURED', status: 409 });
    try {
      await page.goto(`${gw.url}/connect#token=${token}`, { waitUntil: 'load' });
      await page.waitForSelector('button[data-app="notes"]');
      await page.click('button[data-app="notes"]');
      await page.waitForSelector('dialog[open] form');
      await page.type('[name="credentials.apiKey"]', 'nk_abcdefgh42');
      await page.select('[name="metadata.region"]', 'eu');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog .form-errors:not([hidden])');
      expect(warnings).to.include(`Connect page: POST /v2/end-user/connections answered 409 APP_NOT_CONFIGURED: ${DEVELOPER_MESSAGE}`);
    } finally {
      await page.close();
    }
  });

  it("a sign-in that came back without a connection: the provider's error and description are in the console", async () => {
    const { page, warnings } = await pageRefusing('/none', 'GET', { code: '', status: 0 });
    try {
      await page.goto(`${gw.url}/connect`, { waitUntil: 'load' });
      await page.evaluate(
        (resume: string, outcome: string) => {
          const storage = (globalThis as any).sessionStorage;
          storage.setItem('gateway-connect-resume', resume);
          storage.setItem('gateway-connect-oauth-outcome', outcome);
        },
        JSON.stringify({ token, openerOrigin: null, app: 'crm', reconnect: null, language: 'en' }),
        JSON.stringify({ error: 'invalid_scope', description: 'contacts.write is not a scope of this client' }),
      );
      await page.goto(`${gw.url}/connect`, { waitUntil: 'load' });
      await page.waitForSelector('#alert:not([hidden])');
      expect(await page.$eval('#alert', (e: any) => e.innerText)).not.to.include('invalid_scope');
      expect(warnings).to.include('Connect page: the sign-in to crm came back without a connection: invalid_scope: contacts.write is not a scope of this client');
    } finally {
      await page.close();
    }
  });
});
