import { expect } from 'chai';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, launchBrowserOrSkip, PHONE, screenshot } from '../../../helpers/browser.ts';
import { call } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { ConnectPageWorld, LOGO_URL, NOTES_HELP } from './connect-page-world.ts';

const catalogue = async (language: string): Promise<Record<string, string | Record<string, string>>> =>
  (await import(pathToFileURL(path.join(ROOT, `web/connect/messages-${language}.js`)).href)).default;

/**
 * The Connect page in English, German and French, in a real headless Chromium: the language the customer
 * passes (?lang=, the SDK's language option) or else the browser's, every word of the page from the catalogue,
 * dates and counts by Intl; the auth's help beside the form with a safe link; the company's logo.
 */
describe('the Connect page speaks the end user\'s language, helps find the key, shows the company\'s logo (headless Chromium)', function () {
  this.timeout(180_000);
  const world = new ConnectPageWorld();
  let browser: Browser;
  /** Every text an app's definition or the end user gave (shown as written, in any language). */
  let definitionTexts: string[] = [];

  before(async function () {
    browser = await launchBrowserOrSkip(this);
    await world.start();
    const apps = (await call({ url: world.gw.url, apiKey: await world.token() }, 'GET', '/v2/end-user/apps')).body.data;
    // The auth's help as GET /v2/end-user/apps answers it (the page's source), and whether it is verified.
    const notesAuth = apps.find((a: { slug: string }) => a.slug === 'notes').auths[0];
    expect(notesAuth).to.deep.include({ help: NOTES_HELP, verifies: true });
    expect(apps.find((a: { slug: string }) => a.slug === 'hub').auths.map((a: { help: unknown; verifies: boolean }) => [a.help, a.verifies])).to.deep.equal([[null, false], [null, false]]);
    definitionTexts = JSON.stringify(apps)
      .match(/"(?:name|description|label|text)":"[^"]+"/g)!
      .map((pair) => JSON.parse(pair.slice(pair.indexOf(':') + 1)) as string)
      .concat(['Ada Lovelace', 'ada@example.com', 'Acme workspace', 'Globex workspace', 'Stale workspace', 'tickets.read', 'tickets.write'])
      .sort((a, b) => b.length - a.length);
  });
  after(async () => {
    await browser?.close();
    await world.stop();
  });

  const text = (page: Page, selector: string) => page.$eval(selector, (e: any) => e.innerText.trim());
  const lang = (page: Page) => page.evaluate(() => [(globalThis as any).document.documentElement.lang, (globalThis as any).document.title]);

  /**
   * The English words of the page still showing in another language: each catalogue sentence's fixed parts
   * (8 characters or more) looked for in the page's text, once the definitions' own texts are taken out.
   */
  async function englishLeft(page: Page): Promise<string[]> {
    let shown: string = await page.evaluate(() => (globalThis as any).document.body.innerText + ' ' + (globalThis as any).document.title);
    for (const own of definitionTexts) shown = shown.replaceAll(own, ' ');
    const english = await catalogue('en');
    const fragments = Object.values(english)
      .flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v)))
      .flatMap((sentence) => sentence.split(/\{\w+\}/))
      .map((f) => f.trim())
      .filter((f) => f.length >= 8);
    // Whole words only: French "Reconnecter" is not the English "Reconnect".
    const found = (f: string) => new RegExp(`(?<!\\p{L})${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\p{L})`, 'u').test(shown);
    return [...new Set(fragments.filter(found))];
  }

  it('chooses the language: the browser\'s, ?lang= over the browser\'s, and English when it speaks none of them; <html lang> and the title follow', async () => {
    const cases = [
      { options: { languages: ['de-CH', 'en'] }, expected: 'de', title: 'Konten verbinden' },
      { options: { languages: ['de-DE'], lang: 'fr' }, expected: 'fr', title: 'Connecter vos comptes' },
      { options: { languages: ['es-ES', 'de-AT'], lang: 'es' }, expected: 'de', title: 'Konten verbinden' },
      { options: { languages: ['pt-BR', 'ja'] }, expected: 'en', title: 'Connect your accounts' },
      { options: { languages: ['fr-CA'], lang: 'en' }, expected: 'en', title: 'Connect your accounts' },
    ];
    for (const { options, expected, title } of cases) {
      const { page } = await world.openPage(browser, DESKTOP, options);
      try {
        expect(await lang(page), JSON.stringify(options)).to.deep.equal([expected, title]);
        expect(await text(page, '#title')).to.equal(title);
      } finally {
        await page.close();
      }
    }
  });

  for (const language of ['de', 'fr', 'en']) {
    it(`in ${language}: the list, the search, the choice, the form with its help and errors, the reconnect: every word from the catalogue, dates and counts by Intl`, async () => {
      const words = await catalogue(language);
      const say = (key: string, values: Record<string, string> = {}) => String(words[key]).replace(/\{(\w+)\}/g, (_, k) => values[k] ?? '');
      const { page, foreign, logoRequests } = await world.openPage(browser, PHONE, { lang: language });
      const leftovers: string[] = [];
      const collect = async (state: string) => {
        if (language !== 'en') for (const f of await englishLeft(page)) leftovers.push(`${state}: "${f}"`);
      };
      try {
        // The list: the title, the sections, the statuses, the dates in the language's own format.
        expect(await text(page, '#connections-title')).to.equal(say('connections.title'));
        expect(await text(page, '#apps-title')).to.equal(say('apps.title'));
        const mine = (await call({ url: world.gw.url, apiKey: await world.token() }, 'GET', '/v2/end-user/connections')).body.data as { id: string; createdOn: string }[];
        const acme = mine.find((c) => c.id === world.connections.acme)!;
        const since = say('connections.since', { date: new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(new Date(acme.createdOn)) });
        expect(await page.$eval(`li[data-connection="${acme.id}"]`, (e: any) => e.innerText)).to.include(since);
        expect(await text(page, `li[data-connection="${world.connections.stale}"] .badge`)).to.equal(say('connections.needsReauthorization'));
        expect(await text(page, `li[data-connection="${world.connections.acme}"] .badge`)).to.equal(say('connections.active'));
        // The company's logo, from its https URL, requested without a Referer.
        expect(await page.$eval('#logo', (i: any) => [i.hidden, i.src, i.naturalWidth > 0])).to.deep.equal([false, LOGO_URL, true]);
        expect(logoRequests.map((r) => r.referer ?? ''), 'no Referer').to.deep.equal(['']);
        await collect('list');
        await screenshot(page, `connect-language-${language}-list-375`);

        // The search's count, by the language's plural rules.
        await page.type('#search', 'Acme');
        await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#apps button').length === 1);
        expect(await text(page, '#search-count')).to.equal((words['apps.matches'] as Record<string, string>).one!.replace('{count}', '1'));
        await collect('search');
        await page.$eval('#search', (e: any) => (e.value = ''));
        await page.type('#search', 'zzzz');
        await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#apps button').length === 0);
        expect(await text(page, '#search-count')).to.equal((words['apps.matches'] as Record<string, string>).zero);

        // The choice of ways to connect, then the OAuth step with its scopes.
        await page.$eval('#search', (e: any) => {
          e.value = '';
          e.dispatchEvent(new Event('input'));
        });
        await page.click('button[data-app="hub"]');
        await page.waitForSelector('dialog[open] .choices');
        expect(await text(page, '#step-title')).to.equal(say('step.connect', { app: 'Ticket Hub' }));
        await collect('choice');
        await page.click('dialog .choice[data-auth="oauth2"]');
        await page.waitForSelector('dialog[open] .scopes');
        expect(await text(page, 'dialog .scopes p')).to.equal(say('oauth.scopes', { app: 'Ticket Hub' }));
        await collect('oauth scopes');
        await page.keyboard.press('Escape');
        await page.waitForSelector('dialog:not([open])');

        // The form: the auth's help in the language, its link safe; then the field errors.
        await page.click('button[data-app="notes"]');
        await page.waitForSelector('dialog[open] form');
        const help = language === 'en' ? NOTES_HELP.text : NOTES_HELP.translations[language as 'de' | 'fr'];
        expect(await page.$$eval('dialog .help p', (ps) => ps.map((p: any) => p.innerText.trim()))).to.deep.equal([help, `${say('form.helpLink', { app: 'Acme Notes' })} ${say('form.newTab')}`]);
        expect(await page.$eval('dialog .help a', (a: any) => [a.href, a.target, a.rel, a.getAttribute('referrerpolicy')])).to.deep.equal([NOTES_HELP.url, '_blank', 'noopener noreferrer', 'no-referrer']);
        expect(await page.$eval('label[for="field-credentials-apiKey"]', (l: any) => l.innerText.trim())).to.equal(`API key ${say('form.required')}`);
        await collect('form');
        await page.type('[name="credentials.apiKey"]', 'not-a-key');
        await page.click('dialog button[type="submit"]');
        await page.waitForSelector('#field-credentials-apiKey-error:not([hidden])');
        expect(await text(page, '#field-credentials-apiKey-error')).to.equal(say('field.format', { label: 'API key' }));
        expect(await text(page, '#field-metadata-region-error')).to.equal(say('field.required', { label: 'Region' }));
        expect(await text(page, 'dialog .form-errors')).to.equal((words['form.fix'] as Record<string, string>).other!.replace('{count}', '2'));
        await collect('form errors');
        await screenshot(page, `connect-language-${language}-form-errors-375`);
        // A key the app refuses: the app's answer under the field, in the language.
        await page.$eval('[name="credentials.apiKey"]', (i: any) => (i.value = ''));
        await page.type('[name="credentials.apiKey"]', 'nk_wrong00001');
        await page.select('[name="metadata.region"]', 'eu');
        await page.click('dialog button[type="submit"]');
        await page.waitForFunction((expected: string) => (globalThis as any).document.querySelector('#field-credentials-apiKey-error').innerText === expected, {}, say('field.refused', { app: 'Acme Notes', label: 'API key' }));
        await collect('refused');
        await page.keyboard.press('Escape');
        await page.waitForSelector('dialog:not([open])');

        // Reconnect and disconnect.
        await page.click(`li[data-connection="${world.connections.stale}"] button.button:not(.secondary)`);
        await page.waitForSelector('dialog[open] form');
        expect(await text(page, '#step-title')).to.equal(say('step.reconnect', { app: 'Acme Notes' }));
        await collect('reconnect');
        await page.keyboard.press('Escape');
        await page.waitForSelector('dialog:not([open])');
        await page.click(`li[data-connection="${world.connections.globex}"] button.secondary`);
        await page.waitForSelector('dialog[open] button.danger');
        expect(await text(page, '#step-title')).to.equal(say('disconnect.title', { app: 'Acme Notes' }));
        await collect('disconnect');
        await page.keyboard.press('Escape');
        expect(foreign).to.deep.equal([]);
      } finally {
        await page.close();
      }
      expect(leftovers, 'English words left on the page').to.deep.equal([]);
    });
  }

  it('a sign-in the end user declined reads in the language, and the return page speaks it too', async () => {
    const words = await catalogue('fr');
    const { page } = await world.openPage(browser, PHONE, { lang: 'fr' });
    try {
      // As the return page leaves it when the sign-in ran in this window (the popup was blocked).
      await page.evaluate((resume: string) => {
        (globalThis as any).sessionStorage.setItem('gateway-connect-resume', resume);
        (globalThis as any).sessionStorage.setItem('gateway-connect-oauth-outcome', JSON.stringify({ error: 'access_denied', description: 'The user denied access' }));
      }, JSON.stringify({ token: await world.token(), openerOrigin: null, app: 'crm', reconnect: null, language: 'fr' }));
      await page.goto(`${world.gw.url}/connect`, { waitUntil: 'load' });
      await page.waitForSelector('#alert:not([hidden])');
      expect(await text(page, '#alert')).to.equal(String(words['oauth.denied']).replace('{app}', 'Contact Cloud'));
      expect(await lang(page)).to.deep.equal(['fr', 'Connecter vos comptes']);
    } finally {
      await page.close();
    }
    // The return page itself, in the language the Connect page left in the tab (its way back to /connect
    // held here, so its words can be read).
    const back = await browser.newPage();
    try {
      await back.evaluateOnNewDocument(() => (globalThis as any).sessionStorage.setItem('gateway-connect-language', 'de'));
      await back.setRequestInterception(true);
      back.on('request', (request) => {
        if (request.isNavigationRequest() && new URL(request.url()).pathname === '/connect') return void request.abort('aborted');
        return void request.continue();
      });
      await back.goto(`${world.gw.url}/connect/oauth-return?error=access_denied`, { waitUntil: 'load' }).catch(() => {});
      await back.waitForFunction(() => (globalThis as any).document.documentElement.lang === 'de');
      expect(await back.evaluate(() => [(globalThis as any).document.title, (globalThis as any).document.querySelector('h1').innerText])).to.deep.equal(['Verbindung wird abgeschlossen…', 'Verbindung wird abgeschlossen…']);
    } finally {
      await back.close();
    }
  });

  it('shows no help link but https: a link the definitions could not carry (javascript:) is left out', async () => {
    const page = await browser.newPage();
    try {
      await page.setRequestInterception(true);
      page.on('request', async (request) => {
        if (!request.url().includes('/v2/end-user/apps')) return void request.continue();
        const answer = (await (await fetch(request.url(), { headers: request.headers() })).json()) as { data: { auths: { help: { url: string } | null }[] }[] };
        for (const app of answer.data) for (const auth of app.auths) if (auth.help) auth.help.url = 'javascript:alert(1)';
        void request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) });
      });
      await page.goto(`${world.gw.url}/connect#token=${await world.token()}`, { waitUntil: 'load' });
      await page.waitForSelector('#apps-section:not([hidden])');
      await page.click('button[data-app="notes"]');
      await page.waitForSelector('dialog[open] .help');
      expect(await page.$$eval('dialog .help a', (as) => as.length)).to.equal(0);
      expect(await text(page, 'dialog .help')).to.equal(NOTES_HELP.text);
    } finally {
      await page.close();
    }
  });
});
