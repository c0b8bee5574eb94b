import type { ApiEntry, AppVersion, DefinitionsSnapshot } from '../definitions/index.ts';
import type { Logger } from '../../platform/log/logger.ts';

/**
 * The API a run of `version` calls: api.yaml's, with its baseUrl replaced
 * when APP_BASE_URLS maps the app's slug (a local stand-in, every version of
 * the app). Paths, headers, arguments and auths stay as the YAML says; the
 * egress policy still judges where the call goes.
 */
export function apiOf(version: AppVersion, appBaseUrls: Readonly<Record<string, string>> | undefined): ApiEntry {
  const baseUrl = appBaseUrls?.[version.app.slug];
  return baseUrl === undefined ? version.api : { ...version.api, baseUrl };
}

/**
 * Says once at start which apps APP_BASE_URLS sends elsewhere (warn: calls
 * do not go where the definitions say), and which slugs no loaded app has.
 */
export function logBaseUrlOverrides(appBaseUrls: Readonly<Record<string, string>>, snapshot: DefinitionsSnapshot | null, logger: Logger): void {
  for (const [slug, baseUrl] of Object.entries(appBaseUrls)) {
    if (snapshot && !snapshot.appsBySlug.has(slug)) {
      logger.warn({ app: slug }, `APP_BASE_URLS names "${slug}", but no app has that slug; it is ignored until one does`);
    } else {
      logger.warn({ app: slug, baseUrl }, `APP_BASE_URLS replaces the base URL of app ${slug}: ${slug} → ${baseUrl} (every version; calls do not go where api.yaml says)`);
    }
  }
}
