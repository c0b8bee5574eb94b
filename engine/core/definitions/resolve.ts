import { GatewayError } from '../../platform/errors/index.ts';
import type { ActionEntry, AppEntry, AppVersion, DefinitionsSnapshot } from './snapshot.ts';
import { versionName } from './layout.ts';

/** How a run names an app: by id on the v1 path, by slug on the universal path. */
export type AppRef = { id: string } | { slug: string };
export type ActionRef = { id: string } | { slug: string };

/**
 * An app version by its path segment: `published`, `draft`, or a number.
 * Throws APP_NOT_FOUND or APP_VERSION_NOT_FOUND (404) with a message naming
 * what exists, so a caller can correct the path.
 *
 *   resolveAppVersion(snapshot, { id: 'github' }, 'published')
 *   resolveAppVersion(snapshot, { slug: 'github' }, '2')
 */
export function resolveAppVersion(snapshot: DefinitionsSnapshot, ref: AppRef, version: string): AppVersion {
  const app = 'id' in ref ? snapshot.apps.get(ref.id) : snapshot.appsBySlug.get(ref.slug);
  if (!app) {
    const [field, value] = 'id' in ref ? ['id', ref.id] : ['slug', ref.slug];
    throw GatewayError.of('APP_NOT_FOUND', `no app with ${field} "${value}"${similar(value, 'id' in ref ? snapshot.apps.keys() : snapshot.appsBySlug.keys())} (GET /v2/universal/apps lists them)`);
  }
  if (version === 'published') {
    const published = app.published === undefined ? undefined : app.versions.get(app.published);
    if (!published) throw GatewayError.of('APP_VERSION_NOT_FOUND', `app "${app.id}" has no published version yet (${available(app)})`);
    return published;
  }
  const name = versionName(version);
  const found = name === 'draft' ? app.draft : name === null ? undefined : app.versions.get(name);
  if (!found) {
    throw GatewayError.of('APP_VERSION_NOT_FOUND', `app "${app.id}" has no version "${version}" (${available(app)}); use published, draft or a version number`);
  }
  return found;
}

/** An action of a version by id (v1) or slug (universal); ACTION_NOT_FOUND (404) otherwise. */
export function resolveAction(version: AppVersion, ref: ActionRef): ActionEntry {
  const action = 'id' in ref ? version.actions.get(ref.id) : version.actionsBySlug.get(ref.slug);
  if (action) return action;
  const [field, value] = 'id' in ref ? ['id', ref.id] : ['slug', ref.slug];
  const names = [...('id' in ref ? version.actions.keys() : version.actionsBySlug.keys())].sort();
  const has = names.length <= SHOWN ? ` (it has ${names.length ? names.join(', ') : 'none'})` : `${similar(value, names)} (GET /v2/universal/apps/${version.app.slug}/actions lists its ${names.length})`;
  throw GatewayError.of('ACTION_NOT_FOUND', `${describeVersion(version)} has no action with ${field} "${value}"${has}`);
}

/** Names a not-found message lists in full (an app's actions, when it has no more). */
const SHOWN = 20;

/**
 * `; similar: a, b` for the names that contain the one asked for, are contained in it, or share its first three
 * characters (at most five, of at most the first 10,000 names looked at); '' when none.
 */
function similar(asked: string, names: Iterable<string>): string {
  const wanted = asked.toLowerCase();
  const found: string[] = [];
  let looked = 0;
  for (const name of names) {
    if (++looked > 10_000 || found.length === 5) break;
    const lower = name.toLowerCase();
    if (wanted.length > 0 && (lower.includes(wanted) || wanted.includes(lower) || (wanted.length >= 3 && lower.startsWith(wanted.slice(0, 3))))) found.push(name);
  }
  return found.length ? `; similar: ${found.join(', ')}` : '';
}

/** For messages: "github version 2", "github draft". */
export function describeVersion(version: AppVersion): string {
  return version.version === 'draft' ? `${version.app.id} draft` : `${version.app.id} version ${version.version}`;
}

function available(app: AppEntry): string {
  const names = [...app.versions.keys()].map(String);
  if (app.draft) names.push('draft');
  const published = app.published === undefined ? '' : `, published is ${app.published}`;
  return names.length ? `versions: ${names.join(', ')}${published}` : 'it has no versions';
}
