import { GatewayError, validationError } from '../../../platform/errors/index.ts';
import type { LookupList } from '../../definitions/generated/definition-types.ts';
import type { ActionEntry, AppVersion } from '../../definitions/snapshot.ts';
import { describeVersion } from '../../definitions/resolve.ts';
import type { ListOption, LookupOptions } from '../types.ts';
import { CURSOR_ARGUMENT, PAGED_OPERATIONS } from '../build-request.ts';
import { optionsFromRows } from './list-options.ts';
import { filterOptions, type Searched } from './search-options.ts';

/** What the run engine answers for one action run: the envelope. */
export interface ActionResult {
  success: boolean;
  data: unknown[];
  meta?: Record<string, unknown>;
}

/** One run of a lookup action through the engine, with the caller's connection. */
export interface LookupRun {
  companyId: string;
  connectionId: string;
  version: AppVersion;
  action: ActionEntry;
  arguments: Record<string, unknown>;
}

/**
 * Runs an action the way POST .../run does (arguments built, request sent,
 * response mapped to the envelope). The run engine provides it; it must check
 * that the connection belongs to the company and the app.
 */
export type RunAction = (run: LookupRun) => Promise<ActionResult>;

/** What the builder asks of a Lookup's options: a search text and the lookup action's own cursor. */
export interface LookupPageRequest {
  search?: string | undefined;
  cursor?: string | undefined;
}

/** One page of a Lookup's options, the cursor of the next (absent on the last) and how a search was done. */
export interface LookupPage {
  options: ListOption[];
  cursor?: string;
  searched?: Searched;
}

/**
 * Options of a Lookup list: its action run with its actionArguments through
 * the engine, each row mapped with valueKey and labelKey. Only the first page
 * is used. A failed run is LOOKUP_FAILED (502): the app, not the caller, failed.
 */
export async function runLookup(
  list: LookupList,
  run: RunAction,
  context: Omit<LookupRun, 'action' | 'arguments'>,
  given: Readonly<Record<string, unknown>> = {},
): Promise<ListOption[]> {
  return (await lookupPage(list, run, context, given)).options;
}

/**
 * One page of a Lookup's options for the builder. `cursor` is the lookup
 * action's own `cursor` argument (the meta.cursor of the page before); the
 * next one is answered as `cursor`. `search` goes to the list's
 * searchArgument (the app searches everything), else the page the app
 * answered is filtered (only that page was searched).
 */
export async function lookupPage(
  list: LookupList,
  run: RunAction,
  context: Omit<LookupRun, 'action' | 'arguments'>,
  given: Readonly<Record<string, unknown>> = {},
  asked: LookupPageRequest = {},
): Promise<LookupPage> {
  const action = context.version.actions.get(list.action);
  if (!action) throw GatewayError.of('ACTION_NOT_FOUND', `${describeVersion(context.version)} has no lookup action "${list.action}"`);
  const args = lookupArguments(action, list, given);
  if (asked.cursor !== undefined) {
    if (!pages(action, context.version)) {
      throw validationError([{ field: 'cursor', rule: 'unknown', message: `lookup action ${action.id} answers one page: it takes no cursor` }]);
    }
    args[CURSOR_ARGUMENT] = asked.cursor;
  }
  const byApp = asked.search !== undefined && list.searchArgument !== undefined;
  if (byApp) args[list.searchArgument!] = asked.search;
  const result = await run({ ...context, action, arguments: args });
  if (!result.success) {
    throw GatewayError.of('LOOKUP_FAILED', `lookup action ${action.id} did not succeed, so its options are unknown`, { meta: result.meta });
  }
  const options = optionsFromRows(Array.isArray(result.data) ? result.data : [], list);
  const page: LookupPage = { options };
  if (asked.search !== undefined) {
    page.searched = byApp ? 'app' : 'page';
    if (!byApp) page.options = filterOptions(options, asked.search);
  }
  const next = result.meta?.cursor;
  if ((typeof next === 'string' && next !== '') || (typeof next === 'number' && Number.isFinite(next))) page.cursor = String(next);
  return page;
}

/** An action pages when it has a cursor argument of its own, or is a listing of an API that paginates. */
function pages(action: ActionEntry, version: AppVersion): boolean {
  if (action.arguments.some((a) => a.key === CURSOR_ARGUMENT && a.parent === undefined)) return true;
  return version.api.pagination !== undefined && PAGED_OPERATIONS.has(action.operation);
}

/** The `lookupOptions` dependency of buildOutboundRequest for one run: strict lookups run with the same connection. */
export function lookupOptionsVia(run: RunAction, context: Omit<LookupRun, 'action' | 'arguments'>): LookupOptions {
  return (list, given) => runLookup(list, run, context, given);
}

/**
 * What the lookup action runs with: the values the caller gave for the
 * lookup action's own (visible, top-level) arguments of the same key (the
 * owner and repo a label list needs, say), then the list's actionArguments,
 * which win.
 */
export function lookupArguments(action: ActionEntry, list: LookupList, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const inherited: Record<string, unknown> = {};
  for (const arg of action.arguments) {
    if (!arg.parent && !arg.hidden && Object.hasOwn(given, arg.key) && given[arg.key] !== undefined) inherited[arg.key] = given[arg.key];
  }
  return { ...inherited, ...list.actionArguments };
}
