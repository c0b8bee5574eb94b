import { expect } from 'chai';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { Browser, Page } from 'puppeteer-core';
import { COMPANY_CLAIM } from '../../../../engine/tenancy/end-user-tokens/end-user-tokens.ts';
import { keyRingFor } from '../../../../engine/tenancy/end-user-tokens/key-ring.ts';
import { TOKEN_ALGORITHM } from '../../../../engine/tenancy/end-user-tokens/signing-keys.ts';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot, watchedPage, type WatchedPage } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream, type Reply } from '../../../helpers/upstream.ts';
import { eventually } from '../../../support/eventually.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');

/**
 * The Connect page in a real headless Chromium, against a real gateway, an app stand-in and a fake OAuth
 * provider on 127.0.0.1 (an authorize page that redirects back with a code, and a token endpoint).
 */
describe('the Connect page in a real browser (headless Chromium)', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let browser: Browser;
  let companyName: string;
  let adaId: string;
  /** What the fake provider does at its authorize page: approve (a code) or refuse (an error). */
  let providerAnswer: { error?: string; description?: string; isolated?: boolean; holdAllBut?: string } = {};
  let tokenCalls = 0;
  /** What the fake provider's token endpoint does: issue tokens, or fail as a provider down does. */
  let tokenEndpointDown = false;

  const freshToken = async (): Promise<string> => (await call(gw, 'GET', `/v1/users/${adaId}/token`)).body.token;
  const mine = async () => (await call({ url: gw.url, apiKey: await freshToken() }, 'GET', '/v2/end-user/connections')).body.data as { id: string; appSlug: string; status: string }[];

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    // Port 0, PUBLIC_BASE_URL unset (a developer's setting): the return page is accepted on the address the page
    // was opened on, and the provider's redirect_uri is set in the app configuration (no fixed port to collide).
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    companyName = (await call(gw, 'GET', '/v1/companies')).body.data[0].name;
    adaId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' } })).body.data.userId;
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.customer.test'], enabledApps: ['notes', 'crm'] } })).status).to.equal(200);
    const configured = await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-client-secret', redirectUri: `${gw.url}/v2/connect/callback` } });
    expect(configured.status, JSON.stringify(configured.body)).to.equal(200);
    upstream.on('GET /oauth/authorize', (request): Reply => {
      // A sign-in still under way: the provider's page, waiting for the end user (every state but the one named).
      if (providerAnswer.holdAllBut !== undefined && request.query.get('state') !== providerAnswer.holdAllBut) {
        return { status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><p>Sign in to Contact Cloud…</p>' };
      }
      const back = new URL(request.query.get('redirect_uri')!);
      back.searchParams.set('state', request.query.get('state')!);
      if (providerAnswer.error) {
        back.searchParams.set('error', providerAnswer.error);
        back.searchParams.set('error_description', providerAnswer.description ?? '');
      } else {
        back.searchParams.set('code', `code-${tokenCalls + 1}`);
      }
      // A provider whose sign-in page isolates itself (as many do): the popup is cut off from the Connect page.
      if (providerAnswer.isolated) {
        const page = `<!doctype html><meta http-equiv="refresh" content="2;url=${back.toString().replace(/&/g, '&amp;')}"><p>Signing in…</p>`;
        return { status: 200, headers: { 'content-type': 'text/html', 'cross-origin-opener-policy': 'same-origin' }, body: page };
      }
      return { status: 302, headers: { location: back.toString() } };
    });
    upstream.on('POST /oauth/token', () => {
      tokenCalls += 1;
      if (tokenEndpointDown) return { status: 503, body: { error: 'server_error', error_description: 'token service down' } };
      return { body: { access_token: `access-${tokenCalls}`, refresh_token: `refresh-${tokenCalls}`, expires_in: 3600, token_type: 'Bearer' } };
    });
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  /** Opens /connect#token=… in a watched tab (requests to other origins refused and listed) and waits for the lists. */
  async function openPage(viewport: { width: number; height: number } = DESKTOP, fragment = ''): Promise<WatchedPage> {
    const watched = await watchedPage(browser, gw.url, viewport);
    await watched.page.goto(`${gw.url}/connect#token=${await freshToken()}${fragment}`, { waitUntil: 'load' });
    await watched.page.waitForSelector('#apps-section:not([hidden])');
    return watched;
  }
  const text = (page: Page, selector: string) => page.$eval(selector, (e) => (e as unknown as { innerText: string }).innerText.trim());
  const visibleAlert = (page: Page) => page.waitForSelector('#alert:not([hidden])').then(() => text(page, '#alert'));
  const focused = (page: Page) => page.evaluate(() => {
    const e = (globalThis as any).document.activeElement;
    return `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}|${(e.innerText ?? '').trim().split('\n')[0]}`;
  });
  const clickApp = (page: Page, slug: string) => page.click(`button[data-app="${slug}"]`);
  const connectionRow = (page: Page, id: string) => page.waitForSelector(`li[data-connection="${id}"]`);
  const expectClean = (watched: WatchedPage) => {
    expect(watched.pageErrors, 'uncaught exceptions').to.deep.equal([]);
    // The browser logs a failed fetch (a 400 or 409 the page shows, the 401 of an expired token) as a console error: only those.
    expect(watched.consoleErrors.filter((e) => !/the server responded with a status of (400|401|409)/.test(e)), 'console errors (a CSP refusal is one)').to.deep.equal([]);
    expect(watched.foreignRequests, 'requests to another origin').to.deep.equal([]);
  };
  it('reads the token from the fragment and removes it from the address bar; shows who is signed in and the enabled apps with initials', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      expect(page.url()).to.equal(`${gw.url}/connect`);
      expect(await text(page, '#signed-in')).to.equal(`Signed in as Ada Lovelace · ${companyName}`);
      const apps = await page.$$eval('#apps button', (bs) => bs.map((b) => (b as any).innerText.replace(/\s+/g, ' ').trim()));
      expect(apps).to.deep.equal([
        "Acme Notes Connect A made-up notes app connected with an API key, served by the tests' local upstream.",
        "Contact Cloud Connect A made-up CRM behind OAuth 2.0, its provider the tests' local upstream.",
      ]);
      // Each tile shows the app's icon from this gateway (GET /v2/apps/{slug}/icon), loaded.
      await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('#apps .tile img')].every((i: any) => i.complete && i.naturalWidth > 0));
      expect(await page.$$eval('#apps .tile img', (is) => is.map((i: any) => new URL(i.src).pathname))).to.deep.equal(['/v2/apps/notes/icon', '/v2/apps/crm/icon']);
      expect(await text(page, '#connections-empty')).to.equal('You have not connected any account yet.');
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('connects an API-key app through the form built from its arguments: the API\'s validation message shows next to the field first', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      await clickApp(page, 'notes');
      await page.waitForSelector('dialog[open] form');
      expect(await text(page, '#step-title')).to.equal('Connect Acme Notes');
      expect(await focused(page)).to.equal('h2#step-title|Connect Acme Notes');
      // Every input has a label; the secret is a password input; the Fixed list is a select with its options.
      const fields = await page.$$eval('dialog input, dialog select', (inputs) =>
        inputs.map((i: any) => ({ name: i.name, type: i.type, label: i.labels[0]?.innerText.trim(), required: i.required })),
      );
      expect(fields).to.deep.equal([
        { name: 'credentials.apiKey', type: 'password', label: 'API key (required)', required: true },
        { name: 'credentials.workspace', type: 'text', label: 'Workspace', required: false },
        { name: 'metadata.region', type: 'select-one', label: 'Region (required)', required: true },
      ]);
      expect(await page.$$eval('dialog select option', (os) => os.map((o: any) => o.innerText))).to.deep.equal(['Choose…', 'Europe', 'United States']);

      await page.type('[name="credentials.apiKey"]', 'not-a-key');
      await page.click('dialog button[type="submit"]');
      const error = await page.waitForSelector('#field-credentials-apiKey-error:not([hidden])');
      const message = await error!.evaluate((e: any) => e.innerText);
      // The API's rule is a regular expression: the end user reads words, not the pattern.
      expect(message).to.equal('API key is not in the expected format: check it and try again.');
      expect(await page.$eval('[name="credentials.apiKey"]', (i) => [i.getAttribute('aria-invalid'), i.getAttribute('aria-describedby')])).to.deep.equal(['true', 'field-credentials-apiKey-error']);
      expect(await page.$eval('#field-metadata-region-error', (e: any) => e.innerText)).to.match(/^Region /);
      expect(await page.$eval('dialog .form-errors', (e: any) => [e.getAttribute('role'), e.innerText.trim()])).to.deep.equal(['alert', 'Please correct the 2 fields below.']);
      expect(await focused(page), 'focus on the first invalid field').to.match(/^input#field-credentials-apiKey/);
      await screenshot(page, 'connect-form-error-1280');

      await page.$eval('[name="credentials.apiKey"]', (i: any) => (i.value = ''));
      await page.type('[name="credentials.apiKey"]', 'nk_abcdefgh42');
      await page.select('[name="metadata.region"]', 'eu');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog:not([open])');
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').innerText.includes('Acme Notes is connected.'));
      const [connection] = await mine();
      expect(connection).to.include({ appSlug: 'notes', status: 'active' });
      const row = await connectionRow(page, connection!.id);
      expect(await row!.evaluate((e: any) => e.innerText.replace(/\s+/g, ' '))).to.match(/^Acme Notes Connected Since .* Disconnect$/);
      expect(await focused(page), 'focus back on the app that opened the step').to.equal('button|Acme Notes');
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('connects an OAuth app through a popup to the provider: Deny reads as the user\'s choice, a failed token exchange as a sentence, then a consent lists the connection', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      providerAnswer = { error: 'access_denied', description: 'The user said no' };
      await clickApp(page, 'crm');
      await page.waitForSelector('dialog[open] form');
      expect(await text(page, '#step-title')).to.equal('Connect Contact Cloud');
      const tabs = (await browser.pages()).length;
      const popupClosed = () => eventually(async () => (await browser.pages()).length, (n) => n === tabs, 'the sign-in popup closed itself', 20_000);
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog .form-errors:not([hidden])');
      expect(await text(page, 'dialog .form-errors')).to.equal('You chose not to connect Contact Cloud, so nothing was shared. You can connect it whenever you like.');
      expect(await text(page, '#status'), '"Waiting for you to finish signing in" is over').to.equal('');
      await popupClosed();

      // The provider approves, its token endpoint fails: no host, port or code of it reaches the end user.
      providerAnswer = {};
      tokenEndpointDown = true;
      await page.click('dialog button[type="submit"]');
      await page.waitForFunction(() => (globalThis as any).document.querySelector('dialog .form-errors').innerText.includes('did not finish'), { timeout: 30_000 });
      expect(await text(page, 'dialog .form-errors')).to.equal('Contact Cloud did not finish the sign-in. Try again in a moment.');
      tokenEndpointDown = false;
      await popupClosed();

      providerAnswer = {};
      const before = tokenCalls;
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog:not([open])', { timeout: 30_000 });
      await popupClosed();
      expect(tokenCalls).to.equal(before + 1);
      const crm = (await mine()).find((c) => c.appSlug === 'crm')!;
      expect(crm.status).to.equal('active');
      const row = await connectionRow(page, crm.id);
      expect(await row!.evaluate((e: any) => e.innerText.replace(/\s+/g, ' '))).to.match(/^Contact Cloud Connected Since/);
      expect(await page.$$eval('#connections li', (ls) => ls.length)).to.equal(2);
      // announce() writes the status 30 ms after clearing it (so a screen reader repeats it): wait for it.
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').textContent !== '');
      expect(await text(page, '#status')).to.equal('Contact Cloud is connected.');
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it("connects through a provider whose sign-in page sends Cross-Origin-Opener-Policy: the popup reads as closed, yet the page updates when the sign-in ends", async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      const known = new Set((await mine()).map((c) => c.id));
      providerAnswer = { isolated: true };
      await clickApp(page, 'crm');
      await page.waitForSelector('dialog[open] form');
      const tabs = (await browser.pages()).length;
      await page.click('dialog button[type="submit"]');
      const made = await eventually(async () => (await mine()).find((c) => c.appSlug === 'crm' && !known.has(c.id)), (c) => c !== undefined && c.status === 'active', 'the connection made', 20_000);
      await connectionRow(page, made!.id);
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').innerText.trim() === 'Contact Cloud is connected.', { timeout: 10_000 });
      await page.waitForSelector('dialog:not([open])', { timeout: 10_000 });
      await eventually(async () => (await browser.pages()).length, (n) => n === tabs, 'the sign-in popup closed itself', 20_000);
      expectClean(watched);
      // The tests after this one count on one connection per app.
      expect((await call({ url: gw.url, apiKey: await freshToken() }, 'DELETE', `/v2/end-user/connections/${made!.id}`)).status).to.equal(200);
    } finally {
      providerAnswer = {};
      await page.close();
    }
  });

  it("a consent link another end user's session started, opened in Ada's sign-in window, connects nothing: her page says the sign-in can no longer be finished there", async () => {
    // Mallory, another end user of the company, starts a sign-in from his own session and sends Ada the provider's link.
    const malloryId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'mallory' } })).body.data.userId;
    const mallory = { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${malloryId}/token`)).body.token };
    const started = await call(mallory, 'GET', `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent(`${gw.url}/connect/oauth-return`)}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const link = started.body.data.authorizationUrl as string;
    const adaBefore = (await mine()).map((c) => c.id);
    const watched = await openPage();
    const { page } = watched;
    const tabs = (await browser.pages()).length;
    try {
      // Ada is signing in to Contact Cloud herself (her popup waits at the provider) when she opens Mallory's link.
      providerAnswer = { holdAllBut: new URL(link).searchParams.get('state')! };
      await clickApp(page, 'crm');
      await page.waitForSelector('dialog[open] form');
      await page.click('dialog button[type="submit"]');
      const [popup] = await eventually(async () => (await browser.pages()).slice(tabs), (extra) => extra.length === 1, 'her sign-in popup', 10_000);
      // The page opens the window first and sends it to the provider once the gateway answered: wait for her sign-in page.
      await eventually(async () => popup!.url(), (url) => url.includes('/oauth/authorize?'), 'her sign-in page at the provider', 10_000);
      // The sign-in window ends at the consent Mallory started (his link, opened there), which sends it back to the return page.
      await popup!.goto(link, { waitUntil: 'load' });
      // Her page hears the outcome of that sign-in and cannot confirm it: it was not her session's.
      await page.waitForFunction(() => (globalThis as any).document.querySelector('dialog .form-errors')?.innerText.includes('can no longer be finished here'), { timeout: 20_000 });
      expect(await text(page, 'dialog .form-errors')).to.equal(
        'This Contact Cloud sign-in can no longer be finished here: it was started in another window, finished already, or took too long. If Contact Cloud is not in your list, start connecting it again.',
      );
      expect((await call(mallory, 'GET', '/v2/end-user/connections')).body.data, "nothing reaches Mallory's end user").to.deep.equal([]);
      expect((await mine()).map((c) => c.id), 'nor Ada').to.deep.equal(adaBefore);
      expect(watched.pageErrors, 'uncaught exceptions').to.deep.equal([]);
    } finally {
      providerAnswer = {};
      for (const extra of (await browser.pages()).slice(tabs)) await extra.close();
      await page.close();
    }
  });

  it('reconnects connections that need re-authorization: a form app with new credentials, an OAuth app through the popup, each keeping its id', async () => {
    const before = await mine();
    for (const c of before) await gw.gateway.services.store.connections.updateOne({ id: c.id }, { $set: { status: 'needs_reauthorization' } });
    const watched = await openPage();
    const { page } = watched;
    try {
      const notes = before.find((c) => c.appSlug === 'notes')!;
      const crm = before.find((c) => c.appSlug === 'crm')!;
      for (const c of [notes, crm]) {
        const row = await connectionRow(page, c.id);
        expect(await row!.evaluate((e: any) => e.innerText.replace(/\s+/g, ' '))).to.match(/Needs reconnecting .* Reconnect Disconnect$/);
      }
      await screenshot(page, 'connect-needs-reconnect-1280');

      await page.click(`li[data-connection="${notes.id}"] button.button:not(.secondary)`);
      await page.waitForSelector('dialog[open] form');
      expect(await text(page, '#step-title')).to.equal('Reconnect Acme Notes');
      expect(await page.$eval('[name="metadata.region"]', (s: any) => s.value), 'the account settings as they are').to.equal('eu');
      await page.type('[name="credentials.apiKey"]', 'nk_renewed0001');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog:not([open])');
      await page.waitForFunction((id: string) => (globalThis as any).document.querySelector(`li[data-connection="${id}"] .badge`).innerText === 'Connected', {}, notes.id);
      // The status line is written 30 ms after the step closes and moves the list down: a click before it could land beside the button.
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').textContent !== '');

      const calls = tokenCalls;
      await page.click(`li[data-connection="${crm.id}"] button.button:not(.secondary)`);
      await page.waitForSelector('dialog[open] form');
      expect(await text(page, '#step-title')).to.equal('Reconnect Contact Cloud');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog:not([open])', { timeout: 30_000 });
      await page.waitForFunction((id: string) => (globalThis as any).document.querySelector(`li[data-connection="${id}"] .badge`).innerText === 'Connected', {}, crm.id);
      expect(tokenCalls).to.equal(calls + 1);
      const after = await mine();
      expect(after.map((c) => [c.id, c.status]).sort()).to.deep.equal(before.map((c) => [c.id, 'active']).sort());
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('when the browser blocks the sign-in popup, says so and offers a redirect: the return page brings the end user back, the connection listed', async () => {
    const page = await browser.newPage();
    try {
      await page.setViewport(DESKTOP);
      // A browser that blocks pop-ups answers window.open with null.
      await page.evaluateOnNewDocument(() => {
        (globalThis as any).open = () => null;
      });
      for (const c of (await mine()).filter((c) => c.appSlug === 'crm')) await gw.gateway.services.store.connections.deleteOne({ id: c.id });
      await page.goto(`${gw.url}/connect#token=${await freshToken()}&app=crm`, { waitUntil: 'load' });
      await page.waitForSelector('dialog[open] form');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog p[role="alert"]');
      expect(await text(page, 'dialog p[role="alert"]')).to.equal('Your browser blocked the sign-in window.');
      const calls = tokenCalls;
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('xpath///button[normalize-space(.)="Continue in this window"]')]);
      await page.waitForFunction(() => (globalThis as any).location.pathname === '/connect' && (globalThis as any).document.querySelector('#status').innerText.includes('Contact Cloud is connected.'), { timeout: 30_000 });
      expect(tokenCalls).to.equal(calls + 1);
      const back = (await mine()).find((c) => c.appSlug === 'crm')!;
      await connectionRow(page, back.id);
      expect(page.url(), 'nothing of the outcome or the token in the address').to.equal(`${gw.url}/connect`);
      // Only the page's language stays (for the return page; not a secret).
      expect(await page.evaluate(() => Object.keys((globalThis as any).sessionStorage)), 'the token left sessionStorage on return').to.deep.equal(['gateway-connect-language']);
    } finally {
      await page.close();
    }
  });

  it('disconnects after a confirmation (Cancel keeps it and returns focus), and the connection is gone', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      const notes = (await mine()).find((c) => c.appSlug === 'notes')!;
      const disconnect = `li[data-connection="${notes.id}"] button.secondary`;
      // An installation of the company's uses it: a sentence saying who can change that, not "reload and try again".
      const installation = await call(gw, 'POST', '/v2/installations', { body: { endUserId: adaId, apps: [{ appSlug: 'notes', connectionId: notes.id }] } });
      expect(installation.status, JSON.stringify(installation.body)).to.equal(201);
      await page.click(disconnect);
      await page.waitForSelector('dialog[open]');
      await page.click('dialog button.danger');
      await page.waitForSelector('dialog .form-errors:not([hidden])');
      expect(await text(page, 'dialog .form-errors')).to.equal(`Acme Notes cannot be disconnected here: ${companyName} uses this connection. Ask ${companyName} to stop using it first.`);
      expect((await call(gw, 'DELETE', `/v2/installations/${installation.body.data.id}`)).status).to.equal(200);
      await page.click('dialog .actions button.secondary');
      await page.waitForSelector('dialog:not([open])');

      await page.click(disconnect);
      await page.waitForSelector('dialog[open]');
      expect(await text(page, '#step-title')).to.equal('Disconnect Acme Notes?');
      await page.click('dialog .actions button.secondary');
      await page.waitForSelector('dialog:not([open])');
      expect(await focused(page)).to.equal('button|Disconnect');
      expect((await mine()).map((c) => c.id)).to.include(notes.id);

      await page.click(disconnect);
      await page.waitForSelector('dialog[open]');
      await page.click('dialog button.danger');
      await page.waitForSelector('dialog:not([open])');
      await page.waitForFunction((id: string) => !(globalThis as any).document.querySelector(`li[data-connection="${id}"]`), {}, notes.id);
      // announce() writes the status 30 ms after clearing it (so a screen reader repeats it): wait for it.
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').textContent !== '');
      expect(await text(page, '#status')).to.equal('Acme Notes is disconnected.');
      expect((await mine()).map((c) => c.id)).not.to.include(notes.id);
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('works with the keyboard only: Tab to an app, Enter opens the step, Escape closes it and focus returns, Enter in the form submits', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      let reached = '';
      // Past the connections (listed first, each with its buttons) to the first app.
      for (let i = 0; i < 30 && !reached.startsWith('button|Acme Notes'); i++) {
        await page.keyboard.press('Tab');
        reached = await focused(page);
      }
      expect(reached).to.equal('button|Acme Notes');
      // A visible focus ring.
      expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.activeElement).outlineStyle)).to.equal('solid');
      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog[open] form');
      expect(await focused(page)).to.equal('h2#step-title|Connect Acme Notes');
      await page.keyboard.press('Escape');
      await page.waitForSelector('dialog:not([open])');
      expect(await focused(page)).to.equal('button|Acme Notes');

      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog[open] form');
      await page.keyboard.press('Tab'); // the Close button
      await page.keyboard.press('Tab');
      expect(await focused(page)).to.match(/^input#field-credentials-apiKey/);
      await page.keyboard.type('nk_keyboard0001');
      await page.keyboard.press('Tab');
      await page.keyboard.type('team-a');
      await page.keyboard.press('Tab');
      expect(await focused(page)).to.match(/^select#field-metadata-region/);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog:not([open])');
      await page.waitForFunction(() => (globalThis as any).document.querySelector('#status').innerText.includes('Acme Notes is connected.'));
      expect((await mine()).filter((c) => c.appSlug === 'notes')).to.have.length(1);
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('opens an app\'s connect step directly with app= in the fragment, and says so when that app is not enabled', async () => {
    const watched = await openPage(DESKTOP, '&app=crm');
    try {
      await watched.page.waitForSelector('dialog[open] form');
      expect(await text(watched.page, '#step-title')).to.equal('Connect Contact Cloud');
    } finally {
      await watched.page.close();
    }
    const other = await openPage(DESKTOP, '&app=slack');
    try {
      expect(await visibleAlert(other.page)).to.equal('This app is not available to connect here.');
    } finally {
      await other.page.close();
    }
  });

  it('an expired token: "your session has expired" and nothing else of the page', async () => {
    // A token signed with the gateway's own key, its exp passed: refused as any expired token is.
    const { services } = gw.gateway;
    const { kid, key } = await keyRingFor(services.store, services.keyring).signingKey();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ [COMPANY_CLAIM]: (await services.store.endUsers.findOne({ id: adaId }))!.companyId })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT', kid })
      .setSubject(adaId)
      .setIssuer(services.config.endUserTokens.issuer)
      .setAudience(services.config.endUserTokens.audience)
      .setIssuedAt(now - 700)
      .setExpirationTime(now - 100)
      .setJti('expired-token')
      .sign(key);
    const watched = await watchedPage(browser, gw.url, PHONE);
    const { page } = watched;
    try {
      await page.goto(`${gw.url}/connect#token=${expired}`, { waitUntil: 'load' });
      expect(await visibleAlert(page)).to.equal('Your session has expired: go back to the app that sent you here and open this page again.');
      expect(await page.$eval('#apps-section', (e: any) => e.hidden)).to.equal(true);
      expect(await page.$eval('#connections-section', (e: any) => e.hidden)).to.equal(true);
      expect(await page.content()).not.to.include(expired);
      await screenshot(page, 'connect-expired-375');
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  it('an egress refusal at the token exchange (the provider\'s address not allowed): said in a sentence naming the app', async () => {
    // A second gateway without EGRESS_ALLOW: the browser reaches the provider on 127.0.0.1, the gateway may not.
    const strict = await startTestGateway({ DEFINITIONS_DIR: gw.gateway.services.definitions.dir });
    const page = await browser.newPage();
    try {
      await call(strict, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['crm'] } });
      await call(strict, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-client-secret', redirectUri: `${strict.url}/v2/connect/callback` } });
      const userId = (await call(strict, 'POST', '/v1/users', { body: { externalId: 'eve' } })).body.data.userId;
      const eveToken = (await call(strict, 'GET', `/v1/users/${userId}/token`)).body.token;
      const calls = tokenCalls;
      await page.goto(`${strict.url}/connect#token=${eveToken}&app=crm`, { waitUntil: 'load' });
      await page.waitForSelector('dialog[open] form');
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('dialog .form-errors:not([hidden])', { timeout: 30_000 });
      expect(await text(page, 'dialog .form-errors')).to.equal(`Contact Cloud cannot be reached from here. Please let ${(await call(strict, 'GET', '/v1/companies')).body.data[0].name} know.`);
      expect(tokenCalls, 'the token endpoint was never called').to.equal(calls);
      expect((await call(strict, 'GET', '/v2/connections')).body.data).to.deep.equal([]);
    } finally {
      await page.close();
      await strict.stop();
    }
  });

  it('the gateway unreachable: a plain sentence, no stack trace or raw JSON', async () => {
    const page = await browser.newPage();
    try {
      await page.setRequestInterception(true);
      page.on('request', (request) => void (new URL(request.url()).pathname.startsWith('/v2/') ? request.abort('connectionrefused') : request.continue()));
      await page.goto(`${gw.url}/connect#token=${await freshToken()}`, { waitUntil: 'load' });
      expect(await visibleAlert(page)).to.equal('The connection service cannot be reached. Check your internet connection and try again.');
      expect(await page.$eval('#loading', (e: any) => e.hidden), 'no "Loading…" left beside the error').to.equal(true);
    } finally {
      await page.close();
    }
  });

  it('names every control: each button, input and select has an accessible name, landmarks and headings are there', async () => {
    const watched = await openPage();
    const { page } = watched;
    try {
      await clickApp(page, 'notes');
      await page.waitForSelector('dialog[open] form');
      const nameless = await page.$$eval('button, input, select, dialog', (els) =>
        els
          .filter((e: any) => e.offsetParent !== null || e.tagName === 'DIALOG')
          .filter((e: any) => {
            const labelledBy = e.getAttribute('aria-labelledby');
            const name = e.getAttribute('aria-label') || (labelledBy && (globalThis as any).document.getElementById(labelledBy)?.innerText) || (e.labels && e.labels[0]?.innerText) || (e.tagName === 'BUTTON' && e.innerText);
            return !name || !String(name).trim();
          })
          .map((e: any) => e.outerHTML.slice(0, 80)),
      );
      expect(nameless).to.deep.equal([]);
      expect(await page.$$eval('main, header, h1, h2', (els) => els.map((e) => e.tagName))).to.include.members(['MAIN', 'HEADER', 'H1', 'H2']);
      expect(await page.$eval('#status', (e) => [e.getAttribute('role'), e.getAttribute('aria-live')])).to.deep.equal(['status', 'polite']);
      expect(await page.$eval('html', (e) => e.getAttribute('lang'))).to.equal('en');
      expectClean(watched);
    } finally {
      await page.close();
    }
  });

  for (const viewport of [PHONE, DESKTOP]) {
    it(`lays out at ${viewport.width} px: no horizontal scrolling, touch targets at least 44 px, with the list and with a step open`, async () => {
      const watched = await openPage(viewport);
      const { page } = watched;
      try {
        await page.waitForSelector('#connections li');
        const check = async (name: string) => {
          await screenshot(page, `${name}-${viewport.width}`);
          const { overflow, widest } = await horizontalOverflow(page);
          expect(overflow, `the page scrolls sideways; widest: ${widest}`).to.equal(0);
          expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth)).to.equal(true);
          const small = await page.$$eval('button, input:not([type=checkbox]), select', (els) =>
            els.filter((e: any) => e.offsetParent !== null && e.getBoundingClientRect().height < 44).map((e: any) => `${e.tagName} ${e.innerText ?? e.name}`),
          );
          expect(small, 'touch targets under 44 px').to.deep.equal([]);
        };
        await check('connect-list');
        await clickApp(page, 'notes');
        await page.waitForSelector('dialog[open] form');
        await check('connect-form');
        expectClean(watched);
      } finally {
        await page.close();
      }
    });
  }
});
