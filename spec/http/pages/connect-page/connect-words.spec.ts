import { expect } from 'chai';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { ERROR_STATUS } from '../../../../engine/platform/errors/gateway-error.ts';
import { launchBrowserOrSkip, PHONE } from '../../../helpers/browser.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');

/** What an end user must never read: the API's paths, an HTTP verb, a host:port, an error code (either case). */
const DEVELOPER_WORDS: [string, RegExp][] = [
  ['an API path', /\/v2\//],
  ['an HTTP verb', /\b(GET|PUT|POST|PATCH|DELETE) /],
  ['a host:port', /\b[\w.-]+:\d{2,5}\b/],
  ['an error code', /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/],
  ['an OAuth error', /\b[a-z]+_[a-z_]+\b/],
];
/** The API's message as a developer would write it: every word the page must not pass on. */
const DEVELOPER_MESSAGE = 'app "crm" is not configured: PUT /v2/apps/crm/configuration first; the token endpoint 127.0.0.1:19730 refused: server_error (TOKEN_EXCHANGE_FAILED)';
/**
 * What the return page can carry: the standard OAuth errors (RFC 6749 4.1.2.1), the return page's own
 * unknown_error, and the gateway codes the callback can answer (in lower case).
 */
const OAUTH_ERRORS = [
  ...['invalid_request', 'unauthorized_client', 'access_denied', 'unsupported_response_type', 'invalid_scope', 'server_error', 'temporarily_unavailable', 'unknown_error'],
  ...['TOKEN_EXCHANGE_FAILED', 'EGRESS_DENIED', 'AUTH_PROVIDER_UNAVAILABLE', 'UPSTREAM_UNREACHABLE', 'UPSTREAM_TIMEOUT', 'APP_NOT_CONFIGURED', 'OAUTH_STATE_INVALID', 'INTERNAL_ERROR'].map((code) => code.toLowerCase()),
];

function developerWordsIn(text: string): string[] {
  return DEVELOPER_WORDS.filter(([, pattern]) => pattern.test(text)).map(([name]) => `${name} in "${text}"`);
}

/**
 * Every error the Connect page can show, walked in a real Chromium: each code of the gateway's catalogue (and
 * codes it does not know, by status) answered to the page's load, to the connect form, to the OAuth start and
 * to a disconnect, and every sign-in error the return page can bring back. The page must say a sentence, and
 * no sentence may carry a path, a verb, a host:port or a code.
 */
/** The sentences the page says in `language` (its catalogue), to compare with what it shows. */
const catalogue = async (language: string): Promise<Record<string, string>> => (await import(pathToFileURL(path.join(ROOT, `web/connect/messages-${language}.js`)).href)).default;

for (const language of ['en', 'de', 'fr']) describe(`the Connect page speaks to end users: no developer words in any error (${language})`, function () {
  this.timeout(180_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let browser: Browser;
  let token: string;
  let failures: string[] = [];
  beforeEach(() => (failures = []));

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
    const notes = await call({ url: gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', { body: { appSlug: 'notes', credentials: { apiKey: 'nk_abcdefgh42' }, metadata: { region: 'eu' } } });
    expect(notes.status, JSON.stringify(notes.body)).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  /** A page whose requests matching `refuse` get the gateway's error envelope with `code` (and status). */
  async function pageRefusing(refuse: (request: HTTPRequest) => boolean, answer: { code: string; status: number }): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport(PHONE);
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (!refuse(request)) return void request.continue();
      void request.respond({
        status: answer.status,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, error: { code: answer.code, message: DEVELOPER_MESSAGE } }),
      });
    });
    return page;
  }
  const visibleText = (page: Page, selector: string) => page.$eval(selector, (e: any) => e.innerText.trim());
  /** Everything the end user can read on the page now. */
  const shown = (page: Page) => page.evaluate(() => (globalThis as any).document.body.innerText as string);
  const check = (branch: string, text: string) => {
    if (!text) failures.push(`${branch}: no message shown`);
    for (const found of developerWordsIn(text)) failures.push(`${branch}: ${found}`);
  };

  /** Every gateway code, and codes the page cannot know (by status). */
  const answers = [
    ...Object.entries(ERROR_STATUS).map(([code, status]) => ({ code, status })),
    { code: 'SOMETHING_NEW', status: 400 },
    { code: 'SOMETHING_NEW', status: 418 },
    { code: 'SOMETHING_NEW', status: 500 },
    { code: 'SOMETHING_NEW', status: 503 },
  ];

  it('loading the page: a refusal of the lists is a sentence (one code of each kind; the form walks them all)', async () => {
    const kinds = [
      { code: 'UNAUTHORIZED', status: 401 },
      { code: 'APP_NOT_ENABLED', status: 403 },
      { code: 'INTERNAL_ERROR', status: 500 },
      { code: 'SOMETHING_NEW', status: 418 },
      { code: 'SOMETHING_NEW', status: 503 },
    ];
    for (const answer of kinds) {
      const page = await pageRefusing((r) => r.url().includes('/v2/end-user/apps'), answer);
      try {
        await page.goto(`${gw.url}/connect?lang=${language}#token=${token}`, { waitUntil: 'load' });
        await page.waitForSelector('#alert:not([hidden])');
        check(`load ${answer.code} ${answer.status}`, await visibleText(page, '#alert'));
        check(`load ${answer.code} ${answer.status} (whole page)`, await shown(page));
      } finally {
        await page.close();
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('the connect form, the OAuth start and a disconnect: every refusal is a sentence', async () => {
    const page = await browser.newPage();
    let answer = answers[0]!;
    let refused = '';
    await page.setViewport(PHONE);
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = new URL(request.url());
      const target =
        (refused === 'form' && request.method() === 'POST' && url.pathname === '/v2/end-user/connections') ||
        (refused === 'oauth' && url.pathname.startsWith('/v2/connect/')) ||
        (refused === 'disconnect' && request.method() === 'DELETE');
      if (!target) return void request.continue();
      void request.respond({ status: answer.status, contentType: 'application/json', body: JSON.stringify({ success: false, error: { code: answer.code, message: DEVELOPER_MESSAGE } }) });
    });
    try {
      await page.goto(`${gw.url}/connect?lang=${language}#token=${token}`, { waitUntil: 'load' });
      await page.waitForSelector('#connections li');
      for (const branch of ['form', 'oauth', 'disconnect']) {
        for (answer of answers.filter((a) => a.status !== 401)) {
          refused = branch;
          if (branch === 'disconnect') {
            await page.click('#connections li button.secondary');
            await page.waitForSelector('dialog[open] button.danger');
            await page.click('dialog button.danger');
          } else {
            await page.click(`button[data-app="${branch === 'form' ? 'notes' : 'crm'}"]`);
            await page.waitForSelector('dialog[open] form');
            if (branch === 'form') {
              await page.type('[name="credentials.apiKey"]', 'nk_abcdefgh42');
              await page.select('[name="metadata.region"]', 'eu');
            }
            await page.click('dialog button[type="submit"]');
          }
          await page.waitForSelector('dialog .form-errors:not([hidden])');
          check(`${branch} ${answer.code} ${answer.status}`, await visibleText(page, 'dialog .form-errors'));
          check(`${branch} ${answer.code} ${answer.status} (whole page)`, await shown(page));
          await page.keyboard.press('Escape');
          await page.waitForSelector('dialog:not([open])');
        }
      }
    } finally {
      await page.close();
    }
    expect(failures).to.deep.equal([]);
  });

  it('a sign-in that came back without a connection: every error of the return page is a sentence, Deny is the user\'s choice', async () => {
    const seen = new Map<string, string>();
    const page = await browser.newPage();
    try {
      await page.setViewport(PHONE);
      await page.goto(`${gw.url}/connect`, { waitUntil: 'load' });
      for (const error of OAUTH_ERRORS) {
        // As the return page leaves it when the sign-in ran in this window (the popup was blocked).
        await page.evaluate(
          (resume: string, outcome: string) => {
            const storage = (globalThis as any).sessionStorage;
            storage.setItem('gateway-connect-resume', resume);
            storage.setItem('gateway-connect-oauth-outcome', outcome);
          },
          JSON.stringify({ token, openerOrigin: null, app: 'crm', reconnect: null, language }),
          JSON.stringify({ error, description: DEVELOPER_MESSAGE }),
        );
        await page.goto(`${gw.url}/connect`, { waitUntil: 'load' });
        await page.waitForSelector('#alert:not([hidden])');
        const text = await visibleText(page, '#alert');
        seen.set(error, text);
        check(`oauth ${error}`, text);
      }
    } finally {
      await page.close();
    }
    expect(failures).to.deep.equal([]);
    const words = await catalogue(language);
    expect(seen.get('access_denied')).to.equal(words['oauth.denied']!.replace('{app}', 'Contact Cloud'));
    expect(seen.get('token_exchange_failed')).to.equal(words['error.TOKEN_EXCHANGE_FAILED']!.replace('{app}', 'Contact Cloud'));
    if (language === 'en') {
      expect(seen.get('access_denied')).to.equal('You chose not to connect Contact Cloud, so nothing was shared. You can connect it whenever you like.');
      expect(seen.get('token_exchange_failed')).to.equal('Contact Cloud did not finish the sign-in. Try again in a moment.');
    }
  });
});
