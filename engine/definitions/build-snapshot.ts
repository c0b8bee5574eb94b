import type { Argument } from './generated/definition-types.ts';
import type { AppFiles, VersionFiles } from './definition-tree.ts';
import { expressionKey, type FileAnalysis } from './file-analysis.ts';
import type { DefinitionPath } from './parsed-file.ts';
import type { SourceLocation } from './problems.ts';
import {
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type ActionEntry,
  type ApiEntry,
  type AppEntry,
  type AppVersion,
  type ArgumentEntry,
  type AuthEntry,
  type DefinitionsSnapshot,
} from './snapshot.ts';

/**
 * Stage 5: the runtime objects, built only from a tree without problems
 * (every file valid, every reference resolving). Everything is frozen.
 */
export function buildSnapshot(apps: AppFiles[], hash: string, fileCount: number, loadedAt = new Date()): DefinitionsSnapshot {
  const byId = new Map<string, AppEntry>();
  const bySlug = new Map<string, AppEntry>();
  for (const files of apps) {
    const app = buildApp(files);
    byId.set(app.id, app);
    bySlug.set(app.slug, app);
  }
  return Object.freeze({ hash, loadedAt, fileCount, apps: byId, appsBySlug: bySlug });
}

function buildApp(files: AppFiles): AppEntry {
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
  return frozenWithPlace(
    {
      ...summary,
      definition: deepFreeze(definition),
      published: definition.published,
      versions: new Map([...versions].sort(([a], [b]) => a - b)),
      draft,
    },
    file,
    [],
  );
}

function buildVersion(app: AppVersion['app'], files: VersionFiles): AppVersion {
  const auths = new Map(files.auths.map((file) => [file.definition!.id, buildAuth(file)]));
  const actions = files.actions.map(buildAction);
  return Object.freeze({
    app,
    version: files.name,
    api: buildApi(files.api!, auths),
    auths,
    actions: new Map(actions.map((a) => [a.id, a])),
    actionsBySlug: new Map(actions.map((a) => [a.slug, a])),
  });
}

function buildApi(file: FileAnalysis<'api'>, auths: Map<string, AuthEntry>): ApiEntry {
  const definition = deepFreeze(file.definition!);
  return frozenWithPlace(
    {
      definition,
      baseUrl: definition.baseUrl,
      headers: Object.freeze(Object.fromEntries(Object.entries(definition.headers ?? {}).map(([k, v]) => [k, v!]))),
      bodyEncoding: definition.bodyEncoding ?? 'Json',
      arguments: buildArguments(file, definition.arguments),
      auths: Object.freeze(definition.auths.map((id) => auths.get(id)!)),
      timeoutMs: definition.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: Object.freeze({ ...DEFAULT_RETRY, ...definition.retry }),
      pagination: definition.pagination,
    },
    file,
    [],
  );
}

function buildAuth(file: FileAnalysis<'auth'>): AuthEntry {
  const definition = deepFreeze(file.definition!);
  return frozenWithPlace(
    {
      id: definition.id,
      type: definition.type,
      definition,
      arguments: buildArguments(file, definition.arguments),
      exchangeResponse: file.expressions.get('response'),
    },
    file,
    [],
  );
}

function buildAction(file: FileAnalysis<'action'>): ActionEntry {
  const definition = deepFreeze(file.definition!);
  return frozenWithPlace(
    {
      id: definition.id,
      slug: definition.slug,
      name: definition.name,
      description: definition.description,
      operation: definition.operation,
      method: definition.method,
      path: definition.path,
      arguments: buildArguments(file, definition.arguments),
      response: file.expressions.get('response'),
      definition,
    },
    file,
    [],
  );
}

function buildArguments(file: FileAnalysis, args: readonly Argument[] | undefined): readonly ArgumentEntry[] {
  return Object.freeze(
    (args ?? []).map((arg, i) => {
      const { mapper: _source, ...rest } = arg;
      return frozenWithPlace({ ...rest, mapper: file.expressions.get(expressionKey(['arguments', i, 'mapper'])) }, file, ['arguments', i]);
    }),
  );
}

/**
 * `entry` with an `at` (where it is written), frozen. The position is found
 * on first read: it needs the file's positioned YAML tree, which only files
 * that an error or a tool points into ever build.
 */
function frozenWithPlace<T extends object>(entry: T, file: FileAnalysis, path: DefinitionPath): T & { readonly at: SourceLocation } {
  let at: SourceLocation | undefined;
  Object.defineProperty(entry, 'at', { enumerable: true, get: () => (at ??= file.parsed!.locate(path)) });
  return Object.freeze(entry) as T & { readonly at: SourceLocation };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
