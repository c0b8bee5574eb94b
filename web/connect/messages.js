// Every word the Connect page (and its OAuth return page) shows, from a catalogue per language: English
// (messages-en.js, the reference), German and French. What an end user reads when something goes wrong is a
// sentence in their words, never a host, a port, a path, an HTTP verb or an error code: the code (and the
// API's own message, written for a developer) stays in the error the SDK receives.
//
// THE LANGUAGE: the `lang` parameter of the page's address (/connect?lang=de; the SDK's `language` option
// sets it) when it names a language the page speaks, else the first of the browser's languages
// (navigator.languages, the end user's own order) that it speaks, else English. Only the primary subtag
// counts: de-AT and de-CH read German, fr-CA French. Dates and numbers are formatted with Intl in that
// language. What an app's definition says (its name, an auth's name, a field's label) is shown as written.

import de from './messages-de.js';
import en from './messages-en.js';
import fr from './messages-fr.js';

export const CATALOGUES = { en, de, fr };
export const LANGUAGES = Object.keys(CATALOGUES);
export const DEFAULT_LANGUAGE = 'en';

let language = DEFAULT_LANGUAGE;

/** The language to speak: the requested one when the page has it, else the browser's first it has, else English. */
export function chooseLanguage(requested, preferred = []) {
  for (const tag of [requested, ...preferred]) {
    if (typeof tag !== 'string') continue;
    const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
    if (Object.hasOwn(CATALOGUES, primary)) return primary;
  }
  return DEFAULT_LANGUAGE;
}

/**
 * Chooses the page's language (see above) and puts the document in it: <html lang>, and the text (or the
 * aria-label) of every element marked data-i18n (data-i18n-label) in the HTML. Answers the language.
 */
export function useLanguage(requested, preferred = [], doc = globalThis.document) {
  language = chooseLanguage(requested, preferred);
  if (doc) {
    doc.documentElement.lang = language;
    for (const element of doc.querySelectorAll('[data-i18n]')) element.textContent = t(element.dataset.i18n);
    for (const element of doc.querySelectorAll('[data-i18n-label]')) element.setAttribute('aria-label', t(element.dataset.i18nLabel));
  }
  return language;
}

export const currentLanguage = () => language;

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => (values[key] === undefined || values[key] === null ? '' : String(values[key])));

/**
 * The text of `key` in the page's language, its {placeholders} filled from `values`; a plural (an object)
 * chosen by values.count with Intl.PluralRules (`zero` when there is one and the count is 0), the count
 * formatted with Intl.NumberFormat. A key missing in a language falls back to English.
 */
export function t(key, values = {}) {
  const entry = CATALOGUES[language][key] ?? en[key];
  if (entry === undefined) throw new Error(`no message ${key}`);
  if (typeof entry === 'string') return sentence(entry, values);
  const count = Number(values.count ?? 0);
  const form = count === 0 && entry.zero ? 'zero' : new Intl.PluralRules(language).select(count);
  return sentence(entry[form] ?? entry.other, { ...values, count: formatNumber(count) });
}

/** Filled in; a sentence that starts with a stand-in ("the app", "die App") starts with a capital letter (a name stays as it is written). */
function sentence(text, values) {
  const filled = fill(text, values);
  const first = /^\{(\w+)\}/.exec(text)?.[1];
  const standIns = [CATALOGUES[language]['names.app'], CATALOGUES[language]['names.company']];
  return first && standIns.includes(values[first]) ? filled.charAt(0).toLocaleUpperCase(language) + filled.slice(1) : filled;
}

export const formatNumber = (n) => new Intl.NumberFormat(language).format(n);
export const formatDate = (date) => new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(date);

/** Sentences by the gateway's error code (the key of each in the catalogue). */
const BY_CODE = {
  UNREACHABLE: 'error.UNREACHABLE',
  UNAVAILABLE: 'error.UNAVAILABLE',
  UNAUTHORIZED: 'error.UNAUTHORIZED',
  FORBIDDEN: 'error.FORBIDDEN',
  ORIGIN_NOT_ALLOWED: 'error.ORIGIN_NOT_ALLOWED',
  APP_NOT_ENABLED: 'error.APP_NOT_ENABLED',
  APP_NOT_FOUND: 'error.APP_NOT_ENABLED',
  APP_VERSION_NOT_FOUND: 'error.APP_NOT_ENABLED',
  APP_NOT_CONFIGURED: 'error.APP_NOT_CONFIGURED',
  EGRESS_DENIED: 'error.EGRESS_DENIED',
  NOT_FOUND: 'error.NOT_FOUND',
  CONFLICT: 'error.CONFLICT',
  CONNECTION_LIMIT_REACHED: 'error.CONNECTION_LIMIT_REACHED',
  CONNECTION_NEEDS_REAUTHORIZATION: 'error.NEEDS_RECONNECT',
  AUTH_REFRESH_FAILED: 'error.NEEDS_RECONNECT',
  CREDENTIALS_REJECTED: 'error.CREDENTIALS_REJECTED',
  VERIFICATION_FAILED: 'error.VERIFICATION_FAILED',
  TOKEN_EXCHANGE_FAILED: 'error.TOKEN_EXCHANGE_FAILED',
  CREDENTIAL_EXCHANGE_FAILED: 'error.CREDENTIALS_REJECTED',
  AUTH_PROVIDER_UNAVAILABLE: 'error.NOT_ANSWERING',
  UPSTREAM_UNREACHABLE: 'error.NOT_ANSWERING',
  UPSTREAM_TIMEOUT: 'error.NOT_ANSWERING',
  UPSTREAM_PROTOCOL_ERROR: 'error.UNREADABLE_ANSWER',
  RESPONSE_TOO_LARGE: 'error.UNREADABLE_ANSWER',
  MAPPING_ERROR: 'error.UNREADABLE_ANSWER',
  VALIDATION_ERROR: 'error.VALIDATION_ERROR',
  BAD_REQUEST: 'error.VALIDATION_ERROR',
  PAYLOAD_TOO_LARGE: 'error.PAYLOAD_TOO_LARGE',
  RATE_LIMITED: 'error.RATE_LIMITED',
  CREDENTIALS_UNREADABLE: 'error.server',
};

/** For a code without its own sentence: by HTTP status. */
function byStatus(status) {
  if (status === 429) return 'error.RATE_LIMITED';
  if (status === 413) return 'error.PAYLOAD_TOO_LARGE';
  if (status >= 500 || status === 0) return 'error.server';
  return 'error.other';
}

/** The sentence for an API error. `names` is {app, company}: the app's display name and the end user's company. */
export function errorText(code, status, names) {
  return t(Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : byStatus(status), withFallbacks(names));
}

/** Sign-in outcomes by the return page's `error`: the provider's OAuth error, or a gateway code in lower case. */
const OAUTH = {
  // The end user's own choice at the provider: not a failure.
  access_denied: 'oauth.denied',
  egress_denied: 'error.EGRESS_DENIED',
  token_exchange_failed: 'error.TOKEN_EXCHANGE_FAILED',
  auth_provider_unavailable: 'error.NOT_ANSWERING',
  temporarily_unavailable: 'error.NOT_ANSWERING',
  oauth_state_invalid: 'oauth.expired',
  app_not_configured: 'error.APP_NOT_CONFIGURED',
};

/**
 * The sentence for a sign-in that came back without a connection, chosen by its error alone: a provider's OAuth
 * error, or a gateway code in lower case (upstream_timeout), worded as that code is.
 */
export function oauthErrorText(error, names) {
  const code = String(error).toUpperCase();
  const key = Object.hasOwn(OAUTH, error) ? OAUTH[error] : Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : 'oauth.failed';
  return t(key, withFallbacks(names));
}

const withFallbacks = (names = {}) => ({ app: names.app ?? t('names.app'), company: names.company ?? t('names.company') });

/** Every code and sign-in error with its own sentence: the spec walks each one through the page. */
export const KNOWN_CODES = Object.keys(BY_CODE);
export const KNOWN_OAUTH_ERRORS = Object.keys(OAUTH);
