import path from 'node:path';
import { actionFrom, type ActionContext } from './action-from-operation.ts';
import { bodyEncodings } from './arguments-from-body.ts';
import { authsOf } from './auths-from-security.ts';
import { appErrorOf, retryOf } from './api-conventions.ts';
import { ImportError } from './import-error.ts';
import type { ApiDefinition, AppDefinition, ImportedAction, ImportedApp, Skipped } from './imported-app.ts';
import { obj, str } from './json-access.ts';
import { displayName, documentation, kebabId, unique } from './naming.ts';
import { operationsOf, type OperationInfo } from './operations.ts';
import type { PagingPlan } from './pagination-detection.ts';
import { readDescription, type Description } from './read-description.ts';
import { baseUrlOf } from './servers.ts';

export interface ImportOptions {
  /** The app's id and slug. */
  slug: string;
  /** The app's display name (default: the description's title). */
  name?: string | undefined;
  /** Only these operations, by operationId. */
  operations?: string[] | undefined;
  /** Only operations with one of these tags. */
  tags?: string[] | undefined;
  /** The API's base URL, when the description's servers give none (or another is wanted). */
  baseUrl?: string | undefined;
}

/**
 * `npm run import`: an app made from an OpenAPI description, in memory. The
 * operations chosen (all, or by id or tag) become actions; what cannot be
 * one is skipped with the reason. Throws ImportError for bad input: not a
 * description, a `$ref` that does not resolve, an unknown operation id or
 * tag, two operations with one id (or ids that make one action id).
 */
export async function importDescription(file: string, options: ImportOptions): Promise<{ description: Description; app: ImportedApp }> {
  const description = await readDescription(file);
  const document = description.document;
  const found = operationsOf(document);
  const skipped: Skipped[] = [...found.skipped];
  const notes: string[] = [];
  const note = (message: string) => notes.push(message);
  const operations = chosen(found.operations, options, file, skipped);
  const ids = actionIds(operations, file);

  const base = baseUrlOf(document, file, note, options.baseUrl);
  const metadata: Record<string, string> = {};
  for (const arg of base.arguments) if (arg.default === undefined) metadata[arg.key] = 'example';
  const caseBaseUrl = base.baseUrl.replace(/\{\{(\w+)\}\}/g, (_w, key: string) => String(base.arguments.find((a) => a.key === key)?.default ?? metadata[key] ?? ''));
  const auths = authsOf(document, operations, new URL(caseBaseUrl).origin, note);
  const appError = appErrorOf(operations);
  const ctx: ActionContext = { base, caseBaseUrl, metadata, auths, bodyEncoding: bodyEncodingOf(operations), appError };

  const actions: ImportedAction[] = [];
  const pagings = new Map<ImportedAction, PagingPlan | undefined>();
  for (const op of operations) {
    const made = await actionFrom(op, ids.get(op)!, ctx, note);
    if ('skip' in made) {
      skipped.push({ what: op.label, reason: made.skip });
      continue;
    }
    actions.push(made.action);
    pagings.set(made.action, made.paging);
    skipped.push(...made.skipped);
  }
  if (!actions.length) {
    throw new ImportError(`${file}: none of its ${operations.length} operations can be an action (${skipped.slice(0, 3).map((s) => `${s.what}: ${s.reason}`).join('; ')}${skipped.length > 3 ? '; ...' : ''})`);
  }

  const info = obj(document.info) ?? {};
  const api: ApiDefinition = { baseUrl: base.baseUrl, auths: auths.auths.map((a) => a.definition.id) as [string, ...string[]] };
  if (actions.some((a) => a.definition.response !== undefined)) api.headers = { Accept: 'application/json' };
  if (ctx.bodyEncoding === 'Form') api.bodyEncoding = 'Form';
  if (base.arguments.length) api.arguments = base.arguments;
  const retry = retryOf(document);
  if (retry) api.retry = retry;
  if (appError) api.appError = appError;
  const shared = sharedPagination(actions);
  if (shared) api.pagination = shared;

  const app: AppDefinition = { id: options.slug, slug: options.slug, name: options.name ?? (displayName(str(info.title) ?? '') || options.slug) };
  const about = documentation(str(info.description) ?? '');
  if (about) app.description = about;
  const website = str(obj(document.externalDocs)?.url) ?? str(obj(info.contact)?.url);
  if (website && /^https:\/\/\S+$/.test(website)) app.website = website;
  const source = `${path.basename(file)}: ${str(info.title) ?? 'untitled'} ${str(info.version) ?? ''}`.trim();
  return {
    description,
    app: {
      app: { comments: [`Imported by npm run import from ${source} (${description.format === 'OpenAPI 3.1' ? `OpenAPI ${description.declaredVersion}` : `${description.format}, ${description.declaredVersion}`}).`], definition: app },
      api: { comments: [`Imported from ${source}. Review before publishing: docs/definitions.md, "Importing from an OpenAPI description".`], definition: api },
      auths: auths.auths,
      actions,
      skipped,
      notes,
    },
  };
}

/** The operations `--operations` and `--tags` choose (all by default); deprecated ones only when named. */
function chosen(operations: OperationInfo[], options: ImportOptions, file: string, skipped: Skipped[]): OperationInfo[] {
  let result = operations;
  if (options.operations?.length) {
    const byId = new Set(operations.map((op) => op.operationId).filter((id): id is string => id !== undefined));
    const unknown = options.operations.filter((id) => !byId.has(id));
    if (unknown.length) throw new ImportError(`${file} has no operation ${unknown.map((id) => `"${id}"`).join(', ')}${nearest(unknown[0]!, [...byId])}`);
    const wanted = new Set(options.operations);
    result = result.filter((op) => op.operationId !== undefined && wanted.has(op.operationId));
  }
  if (options.tags?.length) {
    const tags = new Set(operations.flatMap((op) => op.tags));
    const unknown = options.tags.filter((tag) => !tags.has(tag));
    if (unknown.length) throw new ImportError(`${file} has no tag ${unknown.map((t) => `"${t}"`).join(', ')} (its tags: ${[...tags].slice(0, 30).join(', ') || 'none'}${tags.size > 30 ? ', ...' : ''})`);
    const wanted = new Set(options.tags);
    result = result.filter((op) => op.tags.some((t) => wanted.has(t)));
  }
  if (!options.operations?.length) {
    result = result.filter((op) => {
      if (op.operation.deprecated !== true) return true;
      skipped.push({ what: op.label, reason: 'deprecated (name it with --operations to import it)' });
      return false;
    });
  }
  if (!result.length) throw new ImportError(`${file}: no operation is chosen by ${options.tags?.length ? '--tags' : '--operations'}`);
  return result;
}

function nearest(id: string, ids: string[]): string {
  const lower = id.toLowerCase();
  const close = ids.filter((other) => other.toLowerCase().includes(lower) || lower.includes(other.toLowerCase())).slice(0, 5);
  return close.length ? ` (did you mean ${close.map((c) => `"${c}"`).join(', ')}?)` : '';
}

/**
 * Each operation's action id: its operationId in kebab-case, else its method
 * and path (`get-repos-owner-repo-issues`). Two operations with one
 * operationId, or whose ids make one action id, are refused: renaming one
 * silently would make the action ids depend on the order of the description.
 */
function actionIds(operations: OperationInfo[], file: string): Map<OperationInfo, string> {
  const ids = new Map<OperationInfo, string>();
  const byId = new Map<string, OperationInfo>();
  for (const op of operations) {
    if (!op.operationId) continue;
    const id = kebabId(op.operationId) || 'operation';
    const other = byId.get(id);
    if (other) {
      const same = other.operationId === op.operationId;
      throw new ImportError(`${file}: operation id ${same ? `"${op.operationId}" is used by both` : `"${other.operationId}" and "${op.operationId}" make the same action id ${id} for`} ${other.label.replace(/ \(.*\)$/, '')} and ${op.label.replace(/ \(.*\)$/, '')}; rename one in the description, or leave one out with --operations`);
    }
    byId.set(id, op);
    ids.set(op, id);
  }
  const taken = new Set(byId.keys());
  for (const op of operations) {
    if (ids.has(op)) continue;
    const plain = op.path.replace(/\{[^}]*\}/g, '');
    ids.set(op, unique(kebabId(`${op.method.toLowerCase()} ${plain}`) || op.method.toLowerCase(), taken, (base, n) => `${base}-${n}`));
  }
  return ids;
}

/** Form when more operations send only forms than send JSON (api.yaml's bodyEncoding is one per version). */
function bodyEncodingOf(operations: OperationInfo[]): 'Json' | 'Form' {
  let json = 0;
  let form = 0;
  for (const op of operations) {
    const offered = bodyEncodings(op);
    if ('skip' in offered || !offered.encodings.length) continue;
    if (offered.encodings.includes('Json')) json++;
    else form++;
  }
  return form > json ? 'Form' : 'Json';
}

/**
 * The pagination most listings share, moved to api.yaml when two or more
 * have it; those listings then say nothing, others keep their own, and a
 * listing that does not page says `type: None`.
 */
function sharedPagination(actions: ImportedAction[]): ApiDefinition['pagination'] {
  const listings = actions.filter((a) => a.definition.operation === 'list' || a.definition.operation === 'search');
  const counts = new Map<string, number>();
  for (const a of listings) if (a.definition.pagination) counts.set(JSON.stringify(a.definition.pagination), (counts.get(JSON.stringify(a.definition.pagination)) ?? 0) + 1);
  const [best, count] = [...counts].sort((x, y) => y[1] - x[1])[0] ?? [undefined, 0];
  if (!best || count < 2) return undefined;
  const pagination = JSON.parse(best) as NonNullable<ApiDefinition['pagination']>;
  // A GET listing cannot take a cursor in the body: such a pagination stays with the actions that have it.
  if ('location' in pagination && pagination.location === 'Body' && listings.some((a) => a.definition.method === 'GET')) return undefined;
  for (const a of listings) {
    if (JSON.stringify(a.definition.pagination) === best) delete a.definition.pagination;
    else if (!a.definition.pagination) a.definition.pagination = { type: 'None' };
  }
  return pagination;
}

