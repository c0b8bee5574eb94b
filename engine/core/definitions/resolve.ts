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
    throw GatewayError.of('APP_NOT_FOUND', `no app with ${field} "${value}"`);
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
  throw GatewayError.of('ACTION_NOT_FOUND', `${describeVersion(version)} has no action with ${field} "${value}"`);
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
