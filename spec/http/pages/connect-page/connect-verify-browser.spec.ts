import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot, watchedPage, type WatchedPage } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');

/** The notes app's API key, checked by the app (GET /me) when connecting: its workspace is the account label. */
async function notesWithVerify(): Promise<Record<string, string>> {
  const auth = await fs.readFile(path.join(FIXTURE, 'notes/versions/1/auths/api-key.yaml'), 'utf8');
  return { 'notes/versions/1/auths/api-key.yaml': `${auth.trimEnd()}\nverify:\n  path: /me\n  account: workspace.name\n` };
}

/**
 * The Connect page with credentials the app checks, in a real headless Chromium: a key the app refuses is a
 * sentence under the field and nothing is connected; two accounts of one app are told apart by their labels;
 * a key the app stops accepting (a run's 401) shows Reconnect, which keeps the connection.
 */
describe('the Connect page checks credentials with the app and labels each account (headless Chromium)', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let browser: Browser;
  let adaId: string;
  /** The notes app's accepted keys, by the workspace each opens. */
  const keys = new Map([
    ['nk_acme00001', 'Acme workspace'],
    ['nk_globex0001', 'Globex workspace'],
    ['nk_renewed0001', 'Acme workspace'],
  ]);
  const workspaceOf = (authorization: unknown) => keys.get(String(authorization).replace(/^Bearer /, ''));

  const freshToken = async (): Promise<string> => (await call(gw, 'GET', `/v1/users/${adaId}/token`)).body.token;
  const mine = async () =>
    (await call({ url: gw.url, apiKey: await freshToken() }, 'GET', '/v2/end-user/connections')).body.data as { id: string; appSlug: string; status: string; accountLabel: string | null }[];

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, await notesWithVerify());
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    adaId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada Lovelace' } })).body.data.userId;
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['notes'] } })).status).to.equal(200);
    upstream.on('GET /notes/me', (req) => {
      const workspace = workspaceOf(req.headers.authorization);
      return workspace ? { body: { user: 'ada', workspace: { name: workspace } } } : { status: 401, body: { error: 'invalid key' } };
    });
    upstream.on('GET /notes/notes', (req) => (workspaceOf(req.headers.authorization) ? { body: { notes: [] } } : { status: 401, body: { error: 'invalid key' } }));
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
  const rowText = (page: Page, id: string) => page.$eval(`li[data-connection="${id}"]`, (e: any) => e.innerText.replace(/\s+/g, ' ').trim());
  async function submitKey(page: Page, key: string, region = true): Promise<void> {
    await page.$eval('[name="credentials.apiKey"]', (i: any) => (i.value = ''));
    await page.type('[name="credentials.apiKey"]', key);
    if (region) await page.select('[name="metadata.region"]', 'eu');
    await page.click('dialog button[type="submit"]');
  }

  it('a key the app refuses reads as the app\'s answer under the field, and nothing is connected; accepted keys are listed by account', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      await page.click('button[data-app="notes"]');
      await page.waitForSelector('dialog[open] form');
      await submitKey(page, 'nk_wrong00001');
      const error = await page.waitForSelector('#field-credentials-apiKey-error:not([hidden])');
      expect(await error!.evaluate((e: any) => e.innerText)).to.equal('Acme Notes did not accept this API key: check it and try again.');
      expect(await page.$eval('[name="credentials.apiKey"]', (i) => i.getAttribute('aria-invalid'))).to.equal('true');
      expect(await mine(), 'nothing stored').to.deep.equal([]);
      await screenshot(page, 'connect-key-refused-1280');

      await submitKey(page, 'nk_acme00001', false);
      await page.waitForSelector('dialog:not([open])');
      await page.click('button[data-app="notes"]');
      await page.waitForSelector('dialog[open] form');
      await submitKey(page, 'nk_globex0001');
      await page.waitForSelector('dialog:not([open])');
      const connections = await mine();
      expect(connections.map((c) => c.accountLabel).sort()).to.deep.equal(['Acme workspace', 'Globex workspace']);
      for (const c of connections) {
        await page.waitForSelector(`li[data-connection="${c.id}"]`);
        expect(await rowText(page, c.id)).to.match(new RegExp(`^Acme Notes ${c.accountLabel} Connected Since `));
      }
      await screenshot(page, 'connect-two-accounts-1280');
      expect(watched.pageErrors).to.deep.equal([]);
      expect(watched.foreignRequests).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });

  it('a key the app stops accepting (a run gets its 401) shows Reconnect; new credentials keep the connection', async () => {
    const acme = (await mine()).find((c) => c.accountLabel === 'Acme workspace')!;
    keys.delete('nk_acme00001');
    const run = await call(gw, 'POST', '/v2/universal/apps/notes/actions/list-notes/run', { body: { connectionId: acme.id } });
    expect(run.body.meta.authenticated).to.equal(false);
    const watched = await openPage(PHONE);
    const { page } = watched;
    try {
      await page.waitForSelector(`li[data-connection="${acme.id}"]`);
      expect(await rowText(page, acme.id)).to.match(/^Acme Notes Acme workspace Needs reconnecting .* Reconnect Disconnect$/);
      expect((await horizontalOverflow(page)).overflow).to.equal(0);
      await screenshot(page, 'connect-key-needs-reconnect-375');
      await page.click(`li[data-connection="${acme.id}"] button.button:not(.secondary)`);
      await page.waitForSelector('dialog[open] form');
      await submitKey(page, 'nk_wrong00001', false);
      await page.waitForSelector('#field-credentials-apiKey-error:not([hidden])');
      expect((await mine()).find((c) => c.id === acme.id)!.status, 'a refused reconnect changes nothing').to.equal('needs_reauthorization');
      await submitKey(page, 'nk_renewed0001', false);
      await page.waitForSelector('dialog:not([open])');
      await page.waitForFunction((id: string) => (globalThis as any).document.querySelector(`li[data-connection="${id}"] .badge`).innerText === 'Connected', {}, acme.id);
      expect((await mine()).find((c) => c.id === acme.id)).to.include({ status: 'active', accountLabel: 'Acme workspace' });
      expect(watched.pageErrors).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});
