import { deepFreeze } from '../../platform/deep-freeze.ts';
import type { Argument } from './generated/definition-types.ts';
import type { AppFiles, VersionFiles } from './definition-tree.ts';
import { expressionKey, type FileAnalysis } from './file-analysis.ts';
import {
  DEFAULT_RETRY,
  type ActionEntry,
  type ApiEntry,
  type AppEntry,
  type AppVersion,
  type ArgumentEntry,
  type AuthEntry,
  type DefinitionsSnapshot,
  type PaginationEntry,
  type PaginationExpression,
  type PostAuthorizationEntry,
  type RetryEntry,
  PAGED_OPERATIONS,
  PAGINATION_EXPRESSIONS,
  RETRY_EXPRESSIONS,
} from './snapshot.ts';
import type { CompiledExpression } from './expressions.ts';

/**
 * Stage 5: the runtime objects, built only from a tree without problems
 * (every file valid, every reference resolving). Everything is frozen.
 * An app's entry depends on its own folder only, so a reload reuses the
 * entries of the apps whose files did not change (see loaded-tree.ts).
 */
export function snapshotOf(apps: AppEntry[], hash: string, fileCount: number, loadedAt = new Date()): DefinitionsSnapshot {
  const byId = new Map<string, AppEntry>();
  const bySlug = new Map<string, AppEntry>();
  for (const app of apps) {
    byId.set(app.id, app);
    bySlug.set(app.slug, app);
  }
  return Object.freeze({ hash, loadedAt, fileCount, apps: byId, appsBySlug: bySlug });
}

export function buildApp(files: AppFiles): AppEntry {
  const file = files.app!;
  const definition = file.definition!;
  const summary = Object.freeze({ id: definition.id, slug: definition.slug, name: definition.name });
  const versions = new Map<number, AppVersion>();
  let draft: AppVersion | undefined;
  for (const version of files.versions.values()) {
    const built = buildVersion(summary, version);
    if (version.name === 'draft') draft = built;
    else versions.set(version.name, built);
  }
  return Object.freeze({
    ...summary,
    definition: deepFreeze(definition),
    published: definition.published,
    versions: new Map([...versions].sort(([a], [b]) => a - b)),
    draft,
    file: file.source.file,
  });
}

function buildVersion(app: AppVersion['app'], files: VersionFiles): AppVersion {
  const auths = new Map(files.auths.map((file) => [file.definition!.id, buildAuth(file)]));
  const api = buildApi(files.api!, auths);
  const apiPagination = paginationEntry(files.api!);
  const actions = files.actions.map((file) => buildAction(file, apiPagination));
  return Object.freeze({
    app,
    version: files.name,
    api,
    auths,
    actions: new Map(actions.map((a) => [a.id, a])),
    actionsBySlug: new Map(actions.map((a) => [a.slug, a])),
  });
}

function buildApi(file: FileAnalysis<'api'>, auths: Map<string, AuthEntry>): ApiEntry {
  const definition = deepFreeze(file.definition!);
  return Object.freeze({
    definition,
    baseUrl: definition.baseUrl,
    headers: Object.freeze(Object.fromEntries(Object.entries(definition.headers ?? {}).map(([k, v]) => [k, v!]))),
    bodyEncoding: definition.bodyEncoding ?? 'Json',
    arguments: buildArguments(file, definition.arguments),
    auths: Object.freeze(definition.auths.map((id) => auths.get(id)!)),
    timeoutMs: definition.timeoutMs,
    concurrency: definition.concurrency,
    retry: retryEntry(file),
    pagination: definition.pagination,
    appError: file.expressions.get('appError'),
    file: file.source.file,
  });
}

/** The API's retry policy: the defaults for what it leaves out, its expressions compiled (only those it writes are present). */
function retryEntry(file: FileAnalysis<'api'>): RetryEntry {
  const { when: _when, giveUpWhen: _giveUpWhen, resetHeader, ...numbers } = file.definition!.retry ?? {};
  const entry: { -readonly [K in keyof RetryEntry]: RetryEntry[K] } = { ...DEFAULT_RETRY, ...numbers };
  if (resetHeader) entry.resetHeader = Object.freeze({ name: resetHeader.name.toLowerCase(), format: resetHeader.format ?? 'UnixSeconds' });
  for (const key of RETRY_EXPRESSIONS) {
    const compiled = file.expressions.get(expressionKey(['retry', key]));
    if (compiled) entry[key] = compiled;
  }
  return Object.freeze(entry);
}

function buildAuth(file: FileAnalysis<'auth'>): AuthEntry {
  const definition = deepFreeze(file.definition!);
  return Object.freeze({
    id: definition.id,
    type: definition.type,
    definition,
    arguments: buildArguments(file, definition.arguments),
    exchangeResponse: file.expressions.get('response'),
    postAuthorization: postAuthorizationEntry(file),
    verifyAccount: 'verify' in definition ? file.expressions.get(expressionKey(['verify', 'account'])) : undefined,
    file: file.source.file,
  });
}

function postAuthorizationEntry(file: FileAnalysis<'auth'>): PostAuthorizationEntry | undefined {
  const definition = file.definition!;
  if (definition.type !== 'OAuth2AuthorizationCode' || !definition.postAuthorization) return undefined;
  const metadata: Record<string, CompiledExpression> = {};
  for (const key of Object.keys(definition.postAuthorization.metadata)) {
    const compiled = file.expressions.get(expressionKey(['postAuthorization', 'metadata', key]));
    if (compiled) metadata[key] = compiled;
  }
  return Object.freeze({
    options: file.expressions.get(expressionKey(['postAuthorization', 'options'])),
    label: file.expressions.get(expressionKey(['postAuthorization', 'label'])),
    metadata: Object.freeze(metadata),
  });
}

/** The pagination a file writes, with its expressions; null for { type: None }, undefined when it writes none. */
function paginationEntry(file: FileAnalysis<'api'> | FileAnalysis<'action'>): PaginationEntry | null | undefined {
  const definition = file.definition!.pagination;
  if (definition === undefined) return undefined;
  if (definition.type === 'None') return null;
  const expressions: Partial<Record<PaginationExpression, CompiledExpression>> = {};
  for (const key of PAGINATION_EXPRESSIONS) {
    const compiled = file.expressions.get(expressionKey(['pagination', key]));
    if (compiled) expressions[key] = compiled;
  }
  return Object.freeze({ definition: deepFreeze(definition), expressions: Object.freeze(expressions), file: file.source.file });
}

function buildAction(file: FileAnalysis<'action'>, apiPagination: PaginationEntry | null | undefined): ActionEntry {
  const definition = deepFreeze(file.definition!);
  return Object.freeze({
    id: definition.id,
    slug: definition.slug,
    name: definition.name,
    description: definition.description,
    operation: definition.operation,
    method: definition.method,
    path: definition.path,
    arguments: buildArguments(file, definition.arguments),
    response: file.expressions.get('response'),
    // The action's own pagination wins over the API's; { type: None } turns paging off.
    pagination: PAGED_OPERATIONS.has(definition.operation) ? (paginationEntry(file) !== undefined ? paginationEntry(file) : apiPagination) ?? undefined : undefined,
    definition,
    file: file.source.file,
  });
}

function buildArguments(file: FileAnalysis, args: readonly Argument[] | undefined): readonly ArgumentEntry[] {
  return Object.freeze(
    (args ?? []).map((arg, i) => {
      const { mapper: _source, ...rest } = arg;
      return Object.freeze({
        ...rest,
        mapper: file.expressions.get(expressionKey(['arguments', i, 'mapper'])),
      });
    }),
  );
}
