import { parsed, type Env } from '../../platform/settings/env.ts';

/** An app slug as app.yaml writes it (common.schema.json#/$defs/slug). */
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const EXAMPLE = '{"github":"http://127.0.0.1:4010"}';

/**
 * `APP_BASE_URLS`: a JSON object mapping app slugs to the base URL that
 * replaces their api.yaml `baseUrl` (every version), for testing against a
 * local stand-in without editing the YAML. Each URL is absolute http(s),
 * without query, fragment or credentials; `{{name}}` placeholders may stand
 * in its path only (Twilio's `/2010-04-01/Accounts/{{accountSid}}`), filled
 * per segment like api.yaml's, never in its origin; a trailing slash is
 * dropped. Throws an Error whose message names the app and the rule, to
 * follow the setting's name.
 *
 *   parseAppBaseUrls('{"github":"http://127.0.0.1:4010/"}') -> { github: 'http://127.0.0.1:4010' }
 */
export function parseAppBaseUrls(raw: string | undefined): Readonly<Record<string, string>> {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`must be a JSON object of app slug to base URL, e.g. ${EXAMPLE} (not valid JSON)`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const got = Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed);
    throw new Error(`must be a JSON object of app slug to base URL, e.g. ${EXAMPLE} (got ${got})`);
  }
  const urls: Record<string, string> = {};
  for (const [slug, value] of Object.entries(parsed)) {
    if (!SLUG.test(slug)) throw new Error(`names "${slug}", which is not an app slug (lowercase letters and digits, words joined by single hyphens)`);
    if (!isPlainBaseUrl(value)) {
      throw new Error(`must map app "${slug}" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got ${JSON.stringify(value)})`);
    }
    urls[slug] = value.replace(/\/+$/, '');
  }
  return urls;
}

/** A path placeholder as api.yaml writes one; braces anywhere else are refused. */
const PATH_PLACEHOLDER = /\{\{[A-Za-z][A-Za-z0-9_.]*\}\}/g;

export function isPlainBaseUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value !== value.trim() || /[?#]/.test(value)) return false;
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(value)?.[0];
  if (origin === undefined || /[{}]/.test(origin)) return false;
  const plain = value.replace(PATH_PLACEHOLDER, 'x');
  if (/[{}]/.test(plain) || !URL.canParse(plain)) return false;
  const url = new URL(plain);
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}

/** `APP_BASE_URLS`: a JSON object of app slug to base URL; unset overrides none. */
export function appBaseUrlsFromEnv(env: Env): Readonly<Record<string, string>> {
  return parsed(env, 'APP_BASE_URLS', parseAppBaseUrls);
}
