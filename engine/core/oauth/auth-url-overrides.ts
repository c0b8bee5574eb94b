import { isPlainBaseUrl } from '../run/app-base-urls.ts';
import type { AuthEntry, DefinitionsSnapshot } from '../definitions/index.ts';
import type { Logger } from '../../platform/log/logger.ts';
import { parsed, type Env } from '../../platform/settings/env.ts';
import { isJsonObject } from '../../platform/json-object.ts';

/** The URLs of an app's OAuth auths a stand-in may take the place of. */
export const AUTH_URL_KEYS = ['authorizeUrl', 'tokenUrl', 'refreshUrl', 'postAuthorizationUrl'] as const;
export type AuthUrlKey = (typeof AUTH_URL_KEYS)[number];

/** APP_AUTH_URLS: by app slug, the URLs that replace its auths' own. */
export type AppAuthUrls = Readonly<Record<string, Readonly<Partial<Record<AuthUrlKey, string>>>>>;

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const EXAMPLE = '{"xero":{"authorizeUrl":"http://127.0.0.1:4031/authorize","tokenUrl":"http://127.0.0.1:4031/token"}}';

/**
 * `APP_AUTH_URLS`: what APP_BASE_URLS is to api.yaml's `baseUrl`, for the
 * URLs of an app's OAuth 2.0 auths, so a refresh or a whole authorization can
 * be tried against a local stand-in without editing the YAML. A JSON object
 * of app slug to an object of any of `authorizeUrl`, `tokenUrl`, `refreshUrl`
 * and `postAuthorizationUrl`, each an absolute http(s) URL without query,
 * fragment or credentials (`{{placeholders}}` in its path only), replacing
 * that URL of every OAuth auth of every version of the app. A refresh goes to
 * `refreshUrl`, else to `tokenUrl`, when either is given. Throws an Error
 * naming the app and the rule, to follow the setting's name.
 *
 *   parseAppAuthUrls('{"xero":{"tokenUrl":"http://127.0.0.1:4031/token/"}}') -> { xero: { tokenUrl: 'http://127.0.0.1:4031/token' } }
 */
export function parseAppAuthUrls(raw: string | undefined): AppAuthUrls {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error(`must be a JSON object of app slug to auth URLs, e.g. ${EXAMPLE} (not valid JSON)`);
  }
  if (!isJsonObject(value)) throw new Error(`must be a JSON object of app slug to auth URLs, e.g. ${EXAMPLE} (got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)})`);
  const result: Record<string, Partial<Record<AuthUrlKey, string>>> = {};
  for (const [slug, urls] of Object.entries(value)) {
    if (!SLUG.test(slug)) throw new Error(`names "${slug}", which is not an app slug (lowercase letters and digits, words joined by single hyphens)`);
    if (!isJsonObject(urls) || Object.keys(urls).length === 0) throw new Error(`must map app "${slug}" to an object of ${AUTH_URL_KEYS.join(', ')} (got ${JSON.stringify(urls)})`);
    const kept: Partial<Record<AuthUrlKey, string>> = {};
    for (const [key, url] of Object.entries(urls)) {
      if (!(AUTH_URL_KEYS as readonly string[]).includes(key)) throw new Error(`names "${key}" for app "${slug}", which is not one of ${AUTH_URL_KEYS.join(', ')}`);
      if (!isPlainBaseUrl(url)) {
        throw new Error(`must map ${key} of app "${slug}" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got ${JSON.stringify(url)})`);
      }
      kept[key as AuthUrlKey] = url.replace(/\/+$/, '');
    }
    result[slug] = kept;
  }
  return result;
}

/** `APP_AUTH_URLS`; unset replaces nothing. */
export function appAuthUrlsFromEnv(env: Env): AppAuthUrls {
  return parsed(env, 'APP_AUTH_URLS', parseAppAuthUrls);
}

/**
 * The URL template an auth's call uses: the YAML's, or the APP_AUTH_URLS
 * stand-in of the auth's app. A refresh takes `refreshUrl`, else `tokenUrl`,
 * of the stand-in before the YAML's `refresh.url`.
 */
export function authUrl(overrides: AppAuthUrls | undefined, appSlug: string, key: AuthUrlKey, written: string): string {
  const stand = overrides?.[appSlug];
  if (!stand) return written;
  if (key === 'refreshUrl') return stand.refreshUrl ?? stand.tokenUrl ?? written;
  return stand[key] ?? written;
}

/** The URL a refresh of `auth` is sent to, as written: its refresh.url, else its tokenUrl. */
export function writtenRefreshUrl(auth: AuthEntry): string {
  const definition = auth.definition as { tokenUrl?: string; refresh?: { url?: string } };
  return definition.refresh?.url ?? definition.tokenUrl ?? '';
}

/** Says once at start (warn) which apps' auths APP_AUTH_URLS sends elsewhere, and which slugs no loaded app has. */
export function logAuthUrlOverrides(overrides: AppAuthUrls, snapshot: DefinitionsSnapshot | null, logger: Logger): void {
  for (const [slug, urls] of Object.entries(overrides)) {
    if (snapshot && !snapshot.appsBySlug.has(slug)) {
      logger.warn({ app: slug }, `APP_AUTH_URLS names "${slug}", but no app has that slug; it is ignored until one does`);
      continue;
    }
    const list = Object.entries(urls)
      .map(([key, url]) => `${key} → ${url}`)
      .join(', ');
    logger.warn({ app: slug, authUrls: urls }, `APP_AUTH_URLS replaces auth URLs of app ${slug}: ${list} (every version; tokens and codes go to the stand-in, not where the auths say)`);
  }
}
