import { RETRY_EXPRESSIONS, type ActionEntry, type AppEntry, type AppVersion, type DefinitionsSnapshot } from '../core/definitions/snapshot.ts';
import { versionLabel, type VersionName } from '../core/definitions/layout.ts';
import { compareArguments, type Emit } from './argument-changes.ts';
import { proxyRulesOf, type ProxyRules } from '../core/proxy/proxy-rules.ts';
import { same, shown, SEVERITIES, type DefinitionChange } from './definition-change.ts';

/**
 * The semantic difference between two loaded definitions folders: apps by id,
 * versions by name, actions and auths by id, arguments by key. When an app's
 * `published` pointer moves, the old published version is also compared with
 * the new one (marked `publishedMove`). Each change is classified (see
 * definition-change.ts); the list is ordered by app, then the app itself, a
 * published move, its versions (numbered, then draft), then severity.
 */
export function diffDefinitions(base: DefinitionsSnapshot, head: DefinitionsSnapshot): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  const ids = [...new Set([...base.apps.keys(), ...head.apps.keys()])].sort();
  for (const id of ids) {
    const was = base.apps.get(id);
    const now = head.apps.get(id);
    const appEmit: Emit = (c) => changes.push({ app: id, version: null, released: true, ...c });
    if (!was) appEmit({ subject: 'app', where: `app ${id}`, change: 'added', severity: 'compatible', what: 'added' });
    else if (!now) changes.push({ app: id, version: null, released: was.versions.size > 0, subject: 'app', where: `app ${id}`, change: 'removed', severity: 'breaking', what: 'removed' });
    else compareApps(was, now, changes);
  }
  return ordered(changes);
}

/**
 * `npm run diff -- <folder>/<app>@1 <folder>/<app>@2`: one app's version
 * `base.version` as the old side and `head.version` as the new one, by the
 * same rules as one version on both sides, plus the app's own fields (its
 * slug, its wording). Changes into a draft are not released: like any draft's,
 * they never fail a review.
 */
export function diffAppVersions(base: { app: AppEntry; version: AppVersion }, head: { app: AppEntry; version: AppVersion }): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  const released = base.app.versions.size > 0;
  compareAppFields(base.app, head.app, (c) => changes.push({ app: head.app.id, version: null, released, ...c }));
  const [from, to] = [versionLabel(base.version.version), versionLabel(head.version.version)];
  compareVersions(base.version, head.version, (c) => changes.push({ app: head.app.id, version: to, from, released: to !== 'draft', ...c }));
  return ordered(changes);
}

/** By app, then the app itself, a published move, its versions (numbered, then draft); then severity. */
function ordered(changes: DefinitionChange[]): DefinitionChange[] {
  const rank = (c: DefinitionChange) => (c.version === null ? -2 : c.publishedMove ? -1 : c.version === 'draft' ? Number.MAX_SAFE_INTEGER : Number(c.version));
  return changes
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.app < b.c.app ? -1 : a.c.app > b.c.app ? 1 : 0) || rank(a.c) - rank(b.c) || SEVERITIES.indexOf(a.c.severity) - SEVERITIES.indexOf(b.c.severity) || a.i - b.i)
    .map((e) => e.c);
}

function compareApps(was: AppEntry, now: AppEntry, changes: DefinitionChange[]): void {
  // The app itself is released once it has a numbered version: before that, only drafts can break.
  const released = was.versions.size > 0;
  const emit: Emit = (c) => changes.push({ app: now.id, version: null, released, ...c });
  const where = `app ${now.id}`;
  compareAppFields(was, now, emit);
  if (was.published !== now.published) {
    const moved = `published ${shown(was.published)} → ${shown(now.published)}`;
    if (now.published === undefined) emit({ subject: 'published', where, change: 'removed', severity: 'breaking', what: `${moved}: runs of published fail` });
    else if (was.published !== undefined && now.published < was.published) emit({ subject: 'published', where, change: 'changed', severity: 'breaking', what: `${moved}: moves backwards` });
    else emit({ subject: 'published', where, change: was.published === undefined ? 'added' : 'changed', severity: 'compatible', what: moved });
  }
  // Clients of `published` were served the base's old version and now get the head's new one: what changes for them.
  const before = was.published === undefined ? undefined : was.versions.get(was.published);
  const after = now.published === undefined ? undefined : now.versions.get(now.published);
  if (before && after && was.published !== now.published) {
    const [from, to] = [String(was.published), String(now.published)];
    compareVersions(before, after, (c) => changes.push({ app: now.id, version: to, from, publishedMove: true, released: true, ...c }));
  }
  const names: VersionName[] = [...new Set([...was.versions.keys(), ...now.versions.keys()])].sort((a, b) => a - b);
  for (const name of [...names, 'draft' as const]) {
    const before = name === 'draft' ? was.draft : was.versions.get(name);
    const after = name === 'draft' ? now.draft : now.versions.get(name);
    const label = versionLabel(name);
    const versionEmit: Emit = (c) => changes.push({ app: now.id, version: label, released: name !== 'draft', ...c });
    if (!before && !after) continue;
    if (!before) versionEmit({ subject: 'version', where: `version ${label}`, change: 'added', severity: 'compatible', what: 'added' });
    else if (!after) versionEmit({ subject: 'version', where: `version ${label}`, change: 'removed', severity: name === 'draft' ? 'compatible' : 'breaking', what: 'removed' });
    else compareVersions(before, after, versionEmit);
  }
}

/** The app's own fields: its slug (universal paths) and its wording. */
function compareAppFields(was: AppEntry, now: AppEntry, emit: Emit): void {
  const where = `app ${now.id}`;
  if (was.slug !== now.slug) emit({ subject: 'app', where, change: 'changed', severity: 'breaking', what: `slug ${was.slug} → ${now.slug}: universal paths change` });
  for (const field of ['name', 'description', 'website'] as const) {
    if (was.definition[field] !== now.definition[field]) emit({ subject: 'app', where, change: 'changed', severity: 'compatible', what: `${field} ${shown(was.definition[field])} → ${shown(now.definition[field])}` });
  }
  // Categories only place the app in the catalogue: no run, connection or client depends on them.
  const categories = (app: AppEntry) => (app.definition.categories ?? []).join(', ') || 'none';
  if (categories(was) !== categories(now)) emit({ subject: 'app', where, change: 'changed', severity: 'compatible', what: `categories ${categories(was)} → ${categories(now)}` });
}

function compareVersions(was: AppVersion, now: AppVersion, emit: Emit): void {
  const api = (what: string, severity: DefinitionChange['severity']) => emit({ subject: 'api', where: 'api', change: 'changed', severity, what });
  const a = was.api.definition;
  const b = now.api.definition;
  if (a.baseUrl !== b.baseUrl) api(`baseUrl ${a.baseUrl} → ${b.baseUrl}`, 'noted');
  if (!same(a.headers, b.headers)) api(`headers ${shown(a.headers)} → ${shown(b.headers)}`, 'noted');
  if (was.api.bodyEncoding !== now.api.bodyEncoding) api(`bodyEncoding ${was.api.bodyEncoding} → ${now.api.bodyEncoding}`, 'noted');
  if ((a.arrayStyle ?? 'Indices') !== (b.arrayStyle ?? 'Indices')) api(`arrayStyle ${a.arrayStyle ?? 'Indices'} → ${b.arrayStyle ?? 'Indices'}: arrays in form bodies are written another way`, 'noted');
  if (was.api.timeoutMs !== now.api.timeoutMs) api(`timeoutMs ${was.api.timeoutMs ?? 'unset'} → ${now.api.timeoutMs ?? 'unset'}`, 'compatible');
  if (was.api.concurrency !== now.api.concurrency) {
    // Fewer calls at once (or a bound where there was none) can make busy connections answer 503 UPSTREAM_BUSY; more cannot.
    const fewer = now.api.concurrency !== undefined && (was.api.concurrency === undefined || now.api.concurrency < was.api.concurrency);
    api(`concurrency ${shown(was.api.concurrency)} → ${shown(now.api.concurrency)}${fewer ? ': busy connections may answer 503 UPSTREAM_BUSY sooner' : ''}`, fewer ? 'noted' : 'compatible');
  }
  const { when: _wasWhen, giveUpWhen: _wasGiveUp, ...wasRetry } = was.api.retry;
  const { when: _nowWhen, giveUpWhen: _nowGiveUp, ...nowRetry } = now.api.retry;
  for (const key of union(Object.keys(wasRetry), Object.keys(nowRetry)) as (keyof typeof wasRetry)[]) {
    if (!same(wasRetry[key], nowRetry[key])) api(`retry.${key} ${shown(wasRetry[key])} → ${shown(nowRetry[key])}`, 'compatible');
  }
  for (const key of RETRY_EXPRESSIONS) {
    const [before, after] = [a.retry?.[key], b.retry?.[key]];
    if (before !== after) api(`retry.${key} ${before === undefined ? 'added' : after === undefined ? 'removed' : 'changed'}: which answers are rate limits, or retried, changes`, 'noted');
  }
  if (was.api.pagination && !now.api.pagination) api('pagination removed: cursors clients hold are no longer sent', 'breaking');
  else if (was.api.pagination && now.api.pagination && was.api.pagination.type !== now.api.pagination.type) {
    api(`pagination type ${was.api.pagination.type} → ${now.api.pagination.type}: cursors clients hold are refused`, 'breaking');
  } else if (was.api.pagination && now.api.pagination) {
    for (const what of paginationFieldChanges(was.api.pagination, now.api.pagination)) api(what, 'noted');
  } else if (!same(was.api.pagination, now.api.pagination)) api(`pagination ${shown(was.api.pagination)} → ${shown(now.api.pagination)}`, 'noted');
  compareProxy(proxyRulesOf(a), proxyRulesOf(b), api);
  if (a.appError !== b.appError) api(`default appError mapping ${a.appError === undefined ? 'added' : b.appError === undefined ? 'removed' : 'changed'}: check meta.appError of failed calls`, 'noted');
  if (a.auths[0] !== b.auths[0]) api(`default auth ${a.auths[0]} → ${b.auths[0]}`, 'noted');
  for (const id of a.auths) {
    // An auth whose file is gone is reported once, as the auth removed.
    if (!b.auths.includes(id) && now.auths.has(id)) api(`auth ${id} no longer offered: connections using it stop working`, 'breaking');
  }
  compareArguments('api', a.arguments, b.arguments, emit);

  for (const id of union(was.auths.keys(), now.auths.keys())) {
    const before = was.auths.get(id)?.definition;
    const after = now.auths.get(id)?.definition;
    const where = `auth ${id}`;
    if (!before) emit({ subject: 'auth', where, change: 'added', severity: 'compatible', what: 'added' });
    else if (!after) emit({ subject: 'auth', where, change: 'removed', severity: 'breaking', what: 'removed: connections using it stop working' });
    else if (before.type !== after.type) emit({ subject: 'auth', where, change: 'changed', severity: 'breaking', what: `type ${before.type} → ${after.type}: connections must be made again` });
    else {
      const old = before as unknown as Record<string, unknown>;
      const cur = after as unknown as Record<string, unknown>;
      for (const key of union(Object.keys(old), Object.keys(cur))) {
        if (key === 'arguments' || key === 'id' || same(old[key], cur[key])) continue;
        const wording = key === 'name' || key === 'description';
        emit({ subject: 'auth', where, change: 'changed', severity: wording ? 'compatible' : 'noted', what: `${key} ${shown(old[key])} → ${shown(cur[key])}` });
      }
      compareArguments(where, before.arguments, after.arguments, emit);
    }
  }

  for (const id of union(was.actions.keys(), now.actions.keys())) {
    const before = was.actions.get(id)?.definition;
    const after = now.actions.get(id)?.definition;
    const where = `action ${id}`;
    if (!before) emit({ subject: 'action', where, change: 'added', severity: 'compatible', what: 'added' });
    else if (!after) emit({ subject: 'action', where, change: 'removed', severity: 'breaking', what: 'removed' });
    else {
      const field = (key: 'slug' | 'operation' | 'method' | 'path' | 'idArgument' | 'response' | 'name' | 'description', severity: DefinitionChange['severity'], why = '') => {
        if (before[key] !== after[key]) emit({ subject: 'action', where, change: 'changed', severity, what: `${key} ${shown(before[key])} → ${shown(after[key])}${why}` });
      };
      field('slug', 'breaking', ': universal paths change');
      field('operation', 'noted');
      field('method', 'noted');
      field('path', 'noted');
      field('idArgument', 'noted', ': check the id a delete returns');
      if (before.response !== after.response) emit({ subject: 'action', where, change: 'changed', severity: 'noted', what: 'response mapping changed: check the data returned' });
      comparePagination(where, was.actions.get(id)!, now.actions.get(id)!, before.pagination, after.pagination, emit);
      field('name', 'compatible');
      field('description', 'compatible');
      compareArguments(where, before.arguments, after.arguments, emit);
    }
  }
}

/**
 * An action's own pagination: a change of the kind that applies (its own or
 * the API's) refuses the cursors clients hold, so it is breaking; any other
 * change of what it writes is noted.
 */
function comparePagination(where: string, was: ActionEntry, now: ActionEntry, before: unknown, after: unknown, emit: Emit): void {
  if (same(before, after)) return;
  const kind = (action: ActionEntry) => action.pagination?.definition.type ?? (action.definition.pagination?.type === 'None' ? 'None' : undefined);
  const [from, to] = [kind(was), kind(now)];
  if (from !== undefined && from !== to) emit({ subject: 'action', where, change: 'changed', severity: 'breaking', what: `pagination ${from} → ${to ?? 'none'}: cursors clients hold are refused` });
  else if (before && after && (before as { type?: string }).type === (after as { type?: string }).type) {
    for (const what of paginationFieldChanges(before as object, after as object)) emit({ subject: 'action', where, change: 'changed', severity: 'noted', what });
  } else emit({ subject: 'action', where, change: 'changed', severity: 'noted', what: `pagination ${shown(before)} → ${shown(after)}` });
}

/** A pagination of the same kind on both sides, property by property: `pagination.sendFirstPage (none) → true`. */
function paginationFieldChanges(before: object, after: object): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return union(Object.keys(a), Object.keys(b))
    .filter((key) => !same(a[key], b[key]))
    .map((key) => `pagination.${key} ${shown(a[key])} → ${shown(b[key])}`);
}

function union<T>(a: Iterable<T>, b: Iterable<T>): T[] {
  return [...new Set([...a, ...b])].sort();
}

/**
 * api.yaml's `proxy`: switching it off, or taking a path away, breaks proxied
 * calls that worked; a header no longer forwarded changes what the app
 * receives; anything opened or added is compatible.
 */
function compareProxy(was: ProxyRules, now: ProxyRules, api: (what: string, severity: DefinitionChange['severity']) => void): void {
  if (was.enabled && !now.enabled) return api('proxy switched off: proxied calls answer 403 PROXY_DISABLED', 'breaking');
  if (!was.enabled && now.enabled) api('proxy switched on', 'compatible');
  if (!now.enabled) return;
  if (was.enabled && was.paths === null && now.paths !== null) {
    api(`proxy paths limited to ${now.paths.join(', ')}: proxied calls elsewhere answer 403 PROXY_PATH_NOT_ALLOWED`, 'breaking');
  } else if (was.enabled && was.paths !== null && now.paths === null) {
    api('proxy paths no longer limited', 'compatible');
  } else if (was.enabled && was.paths !== null && now.paths !== null) {
    for (const path of was.paths) if (!now.paths.includes(path)) api(`proxy path ${path} removed: proxied calls there answer 403 PROXY_PATH_NOT_ALLOWED`, 'breaking');
    for (const path of now.paths) if (!was.paths.includes(path)) api(`proxy path ${path} added`, 'compatible');
  }
  for (const header of was.headers) if (!now.headers.includes(header)) api(`proxy header ${header} no longer forwarded`, 'noted');
  for (const header of now.headers) if (!was.headers.includes(header)) api(`proxy header ${header} forwarded`, 'compatible');
}
