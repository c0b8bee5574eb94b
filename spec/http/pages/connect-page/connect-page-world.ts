import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');

/** The company's logo: an https URL the tests answer themselves (request interception), never the internet. */
export const LOGO_URL = 'https://brand.example/logo.svg';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32"><rect width="120" height="32" rx="6" fill="#0b57d0"/><text x="60" y="22" font-size="16" text-anchor="middle" fill="#fff" font-family="sans-serif">Initech</text></svg>';

/** The notes app's help: where to find its key, in English, German and French. */
export const NOTES_HELP = {
  text: 'In Acme Notes, open Settings, then API keys, and create a key.',
  url: 'https://notes.example/help/api-keys',
  translations: { de: 'Öffnen Sie in Acme Notes die Einstellungen, dann API-Schlüssel, und erstellen Sie einen Schlüssel.', fr: 'Dans Acme Notes, ouvrez Paramètres, puis Clés d’API, et créez une clé.' },
};

/** Seven more apps with a token each, so the page has more than eight and shows its search. */
const EXTRA_APPS = ['Billing Desk', 'Calendar Hub', 'Drive Box', 'Event Stream', 'Form Builder', 'Git Forge', 'Helpdesk Pro'];
export const slugOf = (name: string) => name.toLowerCase().replace(/\s+/g, '-');

/** The keys the notes app accepts (GET /me answers their workspace); `slow` is held until released, then refused. */
export const KEYS = { acme: 'nk_acme00001', globex: 'nk_globex0001', stale: 'nk_stale00001', slow: 'nk_slow00001' };

export async function extraFiles(upstreamUrl: string): Promise<Record<string, string>> {
  const auth = await fs.readFile(path.join(FIXTURE, 'notes/versions/1/auths/api-key.yaml'), 'utf8');
  const files: Record<string, string> = {
    'notes/versions/1/auths/api-key.yaml': `${auth.trimEnd()}\nhelp:\n  text: ${JSON.stringify(NOTES_HELP.text)}\n  url: ${NOTES_HELP.url}\n  translations:\n    de: ${JSON.stringify(NOTES_HELP.translations.de)}\n    fr: ${JSON.stringify(NOTES_HELP.translations.fr)}\nverify:\n  path: /me\n  account: workspace.name\n`,
  };
  for (const name of EXTRA_APPS) {
    const slug = slugOf(name);
    files[`${slug}/app.yaml`] = `id: ${slug}\nslug: ${slug}\nname: ${name}\ndescription: A made-up app, one of several so that the page offers its search.\npublished: 1\n`;
    files[`${slug}/versions/1/api.yaml`] = `baseUrl: ${upstreamUrl}/${slug}\nauths:\n  - token\n`;
    files[`${slug}/versions/1/auths/token.yaml`] = `type: Bearer\nid: token\nname: API token\ntoken: "{{token}}"\narguments:\n  - key: token\n    label: API token\n    dataType: String\n    required: true\n`;
    files[`${slug}/versions/1/actions/ping.yaml`] = `id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\nresponse: |\n  { "success": status < 300, "data": body }\n`;
  }
  return files;
}

/**
 * A gateway, the tests' upstream (the notes app's API and an OAuth provider) and one end user, Ada, with three
 * notes connections: two active with their workspaces as labels, one that needs reconnecting. Ten apps are
 * enabled (search shows), the hub and crm OAuth clients configured (hub offers two ways), the company's theme
 * has a logo.
 */
export class ConnectPageWorld {
  readonly upstream = new Upstream();
  gw!: TestGateway;
  adaId = '';
  readonly connections: Record<'acme' | 'globex' | 'stale', string> = { acme: '', globex: '', stale: '' };
  /** Released by the test: the slow key's verification answers (401) only then. */
  releaseSlow: () => void = () => {};
  private slowGate: Promise<void> = Promise.resolve();
  private cleanupDefs: () => Promise<void> = async () => {};
  private readonly accepted = new Map([
    [KEYS.acme, 'Acme workspace'],
    [KEYS.globex, 'Globex workspace'],
    [KEYS.stale, 'Stale workspace'],
  ]);

  async start(): Promise<void> {
    await this.upstream.start();
    const defs = await definitionsFor(FIXTURE, this.upstream.url, await extraFiles(this.upstream.url));
    this.cleanupDefs = defs.cleanup;
    // The world's end users connect hundreds of times a minute to reach the page's states; the bound has its own spec (connect-attempts.spec.ts).
    this.gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', END_USER_CONNECT_ATTEMPTS_PER_MINUTE: '10000', END_USER_MAX_CONNECTIONS: '2000' });
    const keyOf = (authorization: unknown) => String(authorization).replace(/^Bearer /, '');
    this.upstream.on('GET /notes/me', async (req) => {
      const key = keyOf(req.headers.authorization);
      if (key === KEYS.slow) {
        await this.slowGate;
        return { status: 401, body: { error: 'invalid key' } };
      }
      const workspace = this.accepted.get(key);
      return workspace ? { body: { workspace: { name: workspace } } } : { status: 401, body: { error: 'invalid key' } };
    });
    this.upstream.on('GET /notes/notes', (req) => (this.accepted.has(keyOf(req.headers.authorization)) ? { body: { notes: [] } } : { status: 401, body: { error: 'invalid key' } }));

    this.adaId = (await call(this.gw, 'POST', '/v1/users', { body: { externalId: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' } })).body.data.userId;
    const enabled = ['notes', 'hub', 'crm', ...EXTRA_APPS.map(slugOf)];
    const put = await call(this.gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: enabled, theme: { logoUrl: LOGO_URL } } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    for (const slug of ['hub', 'crm']) {
      const configured = await call(this.gw, 'PUT', `/v2/apps/${slug}/configuration`, { body: { clientId: `${slug}-client`, clientSecret: `${slug}-secret`, redirectUri: `${this.gw.url}/v2/connect/callback` } });
      expect(configured.status, JSON.stringify(configured.body)).to.equal(200);
    }
    for (const which of ['acme', 'globex', 'stale'] as const) {
      const made = await call({ url: this.gw.url, apiKey: await this.token() }, 'POST', '/v2/end-user/connections', { body: { appSlug: 'notes', credentials: { apiKey: KEYS[which] }, metadata: { region: 'eu' } } });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      this.connections[which] = made.body.data.id;
    }
    // The stale key stops working: a run gets the app's 401, the verification refuses it too.
    this.accepted.delete(KEYS.stale);
    await call(this.gw, 'POST', '/v2/universal/apps/notes/actions/list-notes/run', { body: { connectionId: this.connections.stale } });
    const stale = (await call({ url: this.gw.url, apiKey: await this.token() }, 'GET', `/v2/end-user/connections`)).body.data.find((c: { id: string }) => c.id === this.connections.stale);
    expect(stale.status).to.equal('needs_reauthorization');
  }

  /** The next verification of the slow key waits until releaseSlow(). */
  holdSlow(): void {
    this.slowGate = new Promise((resolve) => (this.releaseSlow = resolve));
  }

  async token(): Promise<string> {
    return (await call(this.gw, 'GET', `/v1/users/${this.adaId}/token`)).body.token;
  }

  async stop(): Promise<void> {
    this.releaseSlow();
    await this.gw?.stop();
    await this.upstream.stop();
    await this.cleanupDefs();
  }

  /**
   * A tab at `viewport` whose browser prefers `languages` (navigator.languages), on /connect (with ?lang= when
   * given), the logo answered by the test; any other request off the gateway is refused and listed.
   */
  async openPage(browser: Browser, viewport: { width: number; height: number }, options: { languages?: string[]; lang?: string; fragment?: string } = {}): Promise<{ page: Page; foreign: string[]; logoRequests: { referer: string | undefined }[] }> {
    const page = await browser.newPage();
    await page.setViewport(viewport);
    const languages = options.languages ?? ['en-US', 'en'];
    // tsx (esbuild keepNames) may wrap the functions evaluated in the page in __name(): give the page one.
    await page.evaluateOnNewDocument('globalThis.__name = (fn) => fn;');
    await page.evaluateOnNewDocument((langs: string[]) => {
      const nav = (globalThis as any).Navigator.prototype;
      Object.defineProperty(nav, 'languages', { get: () => langs, configurable: true });
      Object.defineProperty(nav, 'language', { get: () => langs[0], configurable: true });
    }, languages);
    const foreign: string[] = [];
    const logoRequests: { referer: string | undefined }[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url === LOGO_URL) {
        logoRequests.push({ referer: request.headers().referer });
        return void request.respond({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG });
      }
      if (url.startsWith('data:') || new URL(url).origin === this.gw.url) return void request.continue();
      foreign.push(url);
      return void request.abort('blockedbyclient');
    });
    const query = options.lang ? `?lang=${encodeURIComponent(options.lang)}` : '';
    await page.goto(`${this.gw.url}/connect${query}#token=${await this.token()}${options.fragment ?? ''}`, { waitUntil: 'load' });
    await page.waitForSelector('#apps-section:not([hidden])');
    await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('img')].every((i: any) => i.complete || i.hidden));
    return { page, foreign, logoRequests };
  }
}
