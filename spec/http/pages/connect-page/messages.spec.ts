import { expect } from 'chai';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERROR_STATUS } from '../../../../engine/platform/errors/gateway-error.ts';
import { ROOT } from '../../../helpers/process.ts';

/** The page's own module, as the browser runs it (plain JavaScript, no DOM needed for what is tested here). */
const load = (name: string): Promise<any> => import(pathToFileURL(path.join(ROOT, 'web/connect', name)).href);

const placeholders = (value: unknown): string[] =>
  [...new Set([...JSON.stringify(value).matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort();

/** What an end user must never read (as the words spec checks the page): a path, a verb, a host:port, a code. */
const DEVELOPER_WORDS = [/\/v2\//, /\b(GET|PUT|POST|PATCH|DELETE) /, /\b[\w.-]+:\d{2,5}\b/, /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/, /\b[a-z]+_[a-z_]+\b/];

describe('the Connect page\'s message catalogues (English, German, French)', () => {
  let messages: any;
  let catalogues: Record<string, Record<string, unknown>>;
  before(async () => {
    messages = await load('messages.js');
    catalogues = messages.CATALOGUES;
  });
  afterEach(() => messages.useLanguage('en', []));

  it('speaks English, German and French, each with exactly the English keys, placeholders and plural forms', () => {
    expect(messages.LANGUAGES).to.deep.equal(['en', 'de', 'fr']);
    const english = catalogues.en!;
    for (const language of ['de', 'fr']) {
      const catalogue = catalogues[language]!;
      expect(Object.keys(catalogue).sort(), language).to.deep.equal(Object.keys(english).sort());
      for (const [key, value] of Object.entries(english)) {
        expect(placeholders(catalogue[key]), `${language} ${key}`).to.deep.equal(placeholders(value));
        expect(typeof catalogue[key], `${language} ${key}`).to.equal(typeof value);
        if (typeof value === 'object') expect(Object.keys(catalogue[key] as object).sort(), `${language} ${key}`).to.deep.equal(Object.keys(value as object).sort());
      }
    }
  });

  it('translates every sentence (none left in English) and none says a path, a verb, a host:port or a code', () => {
    const english = new Set(Object.values(catalogues.en!).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v as object))));
    for (const [language, catalogue] of Object.entries(catalogues)) {
      for (const [key, value] of Object.entries(catalogue)) {
        const texts = typeof value === 'string' ? [value] : Object.values(value as Record<string, string>);
        for (const text of texts) {
          if (language !== 'en') expect(english.has(text), `${language} ${key} is still English: "${text}"`).to.equal(false);
          for (const pattern of DEVELOPER_WORDS) expect(text, `${language} ${key}`).not.to.match(pattern);
        }
      }
    }
  });

  it('chooses the requested language when it speaks it, else the browser\'s first it speaks, else English; the region does not count', () => {
    const choose = messages.chooseLanguage;
    expect(choose('de', ['fr-FR', 'en'])).to.equal('de');
    expect(choose('fr-CA', [])).to.equal('fr');
    expect(choose('DE_at', [])).to.equal('de');
    expect(choose('es', ['es-ES', 'fr-FR', 'de'])).to.equal('fr');
    expect(choose(null, ['de-CH', 'en-GB'])).to.equal('de');
    expect(choose(undefined, ['pt-BR', 'ja'])).to.equal('en');
    expect(choose('', [])).to.equal('en');
    expect(choose('constructor', ['__proto__'])).to.equal('en');
  });

  it('answers a sentence for every gateway code and sign-in error in each language, with names filled in and counts by the language\'s plural rules', () => {
    for (const language of ['en', 'de', 'fr']) {
      messages.useLanguage(language, []);
      for (const [code, status] of Object.entries(ERROR_STATUS)) {
        const text = messages.errorText(code, status, { app: 'Acme Notes', company: 'Initech' });
        expect(text, `${language} ${code}`).to.be.a('string').and.not.equal('');
        expect(text, `${language} ${code}`).not.to.match(/\{\w+\}/);
      }
      for (const error of [...messages.KNOWN_OAUTH_ERRORS, 'server_error', 'unknown_error']) {
        expect(messages.oauthErrorText(error, { app: 'Acme Notes' }), `${language} ${error}`).not.to.match(/\{\w+\}|undefined/);
      }
    }
    messages.useLanguage('de', []);
    expect(messages.t('apps.matches', { count: 0 })).to.equal('Keine App passt zu Ihrer Suche.');
    expect(messages.t('apps.matches', { count: 1 })).to.equal('1 App gefunden.');
    expect(messages.t('form.fix', { count: 2 })).to.equal('Bitte korrigieren Sie die 2 Felder unten.');
    expect(messages.oauthErrorText('access_denied', { app: 'GitHub' })).to.equal('Sie haben sich entschieden, GitHub nicht zu verbinden; es wurde nichts freigegeben. Sie können die App jederzeit verbinden.');
    expect(messages.formatDate(new Date('2026-11-29T10:00:00Z'))).to.equal('29.11.2026');
    // Without a company name yet (an expired token on load): a stand-in that reads well in the sentence.
    expect(messages.errorText('UNAUTHORIZED', 401, {})).to.equal('Ihre Sitzung ist abgelaufen: Öffnen Sie diese Seite erneut über die Anwendung, von der Sie kamen.');
    expect(messages.errorText('CREDENTIALS_REJECTED', 400, {})).to.equal('Die App hat diese Angaben nicht akzeptiert. Prüfen Sie sie und versuchen Sie es erneut.');
    messages.useLanguage('fr', []);
    expect(messages.t('apps.matches', { count: 1200 })).to.equal('1\u202f200 applications trouvées.');
    expect(messages.formatDate(new Date('2026-11-29T10:00:00Z'))).to.equal('29 nov. 2026');
    expect(messages.errorText('UNAUTHORIZED', 401, {})).to.equal('Votre session a expiré\u00a0: revenez sur l’application d’où vous venez et rouvrez cette page.');
    messages.useLanguage('en', []);
    // A callback that failed on the gateway's side comes back with the gateway's code in lower case: worded as that code is.
    expect(messages.oauthErrorText('upstream_timeout', { app: 'Acme Notes' })).to.equal(messages.errorText('UPSTREAM_TIMEOUT', 504, { app: 'Acme Notes' }));
    expect(messages.oauthErrorText('response_too_large', { app: 'Acme Notes' })).to.equal(messages.errorText('RESPONSE_TOO_LARGE', 502, { app: 'Acme Notes' }));
    expect(messages.oauthErrorText('constructor', { app: 'Acme Notes' })).to.equal(messages.oauthErrorText('unknown_error', { app: 'Acme Notes' }));
    expect(messages.t('apps.matches', { count: 2 })).to.equal('2 apps match.');
    // A stand-in at the start of a sentence is capitalised; an app's own name stays as written.
    expect(messages.errorText('EGRESS_DENIED', 403, {})).to.match(/^The app cannot be reached from here\./);
    expect(messages.errorText('EGRESS_DENIED', 403, { app: 'iCloud' })).to.match(/^iCloud cannot be reached from here\./);
    expect(messages.formatDate(new Date('2026-11-29T10:00:00Z'))).to.equal('Nov 29, 2026');
  });
});
