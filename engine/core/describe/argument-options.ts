import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { ActionEntry, AppVersion, ArgumentEntry } from '../definitions/snapshot.ts';
import { builtInOptions, filterOptions, lookupPage, type ListOption, type RunAction, type Searched } from '../arguments/index.ts';

/** Longest search text a builder may send: a dropdown's filter box, not a query language. */
export const SEARCH_MAX_LENGTH = 200;
/** Longest cursor: the apps' own cursors are opaque but short (Slack's, Stripe's next_page, HubSpot's after). */
export const CURSOR_MAX_LENGTH = 1000;

export interface OptionsRequest {
  version: AppVersion;
  action: ActionEntry;
  key: string;
  body: unknown;
  companyId: string;
  runAction: RunAction | undefined;
}

/** One answer of the options endpoint: the options, and for a Lookup the next cursor; `searched` when a search was asked. */
export interface ArgumentOptions {
  argument: ArgumentEntry;
  options: ListOption[];
  cursor?: string;
  searched?: Searched;
}

/**
 * The options of one List argument. Fixed, Country and Currency are answered
 * from the definition and the platform's data (a search filters them all); a
 * Lookup runs its action with the caller's connection through the engine,
 * one page per call: `cursor` is the lookup action's own, `search` goes to its
 * searchArgument or filters the page. Without a wired run engine a Lookup
 * answers LOOKUP_UNAVAILABLE rather than made-up options.
 */
export async function argumentOptions(request: OptionsRequest): Promise<ArgumentOptions> {
  const { action, key } = request;
  const argument = action.arguments.find((a) => a.key === key);
  if (!argument) {
    throw GatewayError.of('ARGUMENT_NOT_FOUND', `action ${action.slug} has no argument "${key}" (its arguments: ${action.arguments.map((a) => a.key).join(', ') || 'none'})`);
  }
  if (!argument.list) {
    throw GatewayError.of('ARGUMENT_HAS_NO_OPTIONS', `argument "${key}" is a ${argument.dataType}, not a List, so it has no options`);
  }
  const list = argument.list;
  const { search, cursor } = pageRequest(request.body);
  if (list.type !== 'Lookup') {
    if (cursor !== undefined) throw validationError([{ field: 'cursor', rule: 'unknown', message: `a ${list.type} list has one page: it takes no cursor` }]);
    const options = builtInOptions(list) ?? [];
    return search === undefined ? { argument, options } : { argument, options: filterOptions(options, search), searched: 'all' };
  }

  const connectionId = connectionIdFrom(request.body);
  if (!request.runAction) {
    throw GatewayError.of('LOOKUP_UNAVAILABLE', `argument "${key}" looks up its options by running action ${list.action}, and running actions is not available in this gateway yet`);
  }
  const page = await lookupPage(list, request.runAction, { companyId: request.companyId, connectionId, version: request.version }, givenArguments(request.body), { search, cursor });
  return { argument, ...page };
}

/**
 * `search` and `cursor` of the body: strings of bounded length. An empty (or
 * blank) search and an empty cursor are the same as none: the first page, unfiltered.
 */
function pageRequest(body: unknown): { search?: string; cursor?: string } {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const problems: FieldProblem[] = [];
  const text = (field: 'search' | 'cursor', max: number, what: string): string | undefined => {
    const value = fields[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      problems.push({ field, rule: 'type', message: `must be a string: ${what}` });
      return undefined;
    }
    const length = [...value].length;
    if (length > max) problems.push({ field, rule: 'maxLength', message: `must be at most ${max} characters (got ${length})` });
    return value;
  };
  const search = text('search', SEARCH_MAX_LENGTH, 'the text the options must contain')?.trim();
  const cursor = text('cursor', CURSOR_MAX_LENGTH, 'the meta.cursor of the previous options answer');
  if (problems.length > 0) throw validationError(problems);
  return { ...(search ? { search } : {}), ...(cursor ? { cursor } : {}) };
}

/** `arguments` the builder has filled in so far, which a Lookup action with the same keys receives (an owner and repo, say). */
function givenArguments(body: unknown): Record<string, unknown> {
  const value = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).arguments : undefined;
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError([{ field: 'arguments', rule: 'type', message: 'must be an object of the argument values filled in so far' }]);
  }
  return value as Record<string, unknown>;
}

/** A Lookup runs with the caller's connection, so it needs { "connectionId": "..." }. */
function connectionIdFrom(body: unknown): string {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).connectionId : undefined;
  if (typeof id === 'string' && id.trim() !== '') return id;
  const message = id === undefined ? 'is required: a Lookup list runs its action with this connection' : 'must be a non-empty string';
  throw validationError([{ field: 'connectionId', rule: id === undefined ? 'required' : 'type', message }]);
}
