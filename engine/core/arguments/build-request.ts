import { MAX_PROBLEMS, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { LookupList } from '../definitions/generated/definition-types.ts';
import type { ActionEntry, ApiEntry, AuthEntry, PaginationEntry } from '../definitions/snapshot.ts';
import { argumentTree, sentName, type ArgumentNode } from './argument-tree.ts';
import { ABSENT, checkArguments, type CheckContext } from './check-arguments.ts';
import { fillTemplate, headerText, hostVariables } from './host-variables.ts';
import { fillUrlTemplate } from './url-template.ts';
import { setPath } from './json-path.ts';
import { emptyParts, fillPath, joinUrl, place, type RequestParts } from './placement.ts';
import { problem, shown } from './rules.ts';
import { escapedArguments, sendValue } from './send-values.ts';
import type { ArgumentDependencies, BuiltRequest, HostValues, ListOption } from './types.ts';
import { isJsonObject } from '../../platform/json-object.ts';

export interface BuildRequestInput {
  action: ActionEntry;
  api: ApiEntry;
  /** The auth the connection uses: its arguments are host variables next to the API's. */
  auth?: AuthEntry | undefined;
  host?: HostValues | undefined;
  /** The caller's arguments as received; anything that is not an object is a problem. */
  arguments: unknown;
}

/** The form of the cursors the engine writes (NextUrl, Offset, Page): base64url payload "." base64url signature, at most 4 KB. */
const ENGINE_CURSOR = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const ENGINE_CURSOR_MAX_CHARS = 4096;

/** The argument a caller sends to get the next page, when the API paginates with a cursor. */
export const CURSOR_ARGUMENT = 'cursor';

export { PAGED_OPERATIONS } from '../definitions/snapshot.ts';

/**
 * Turns a caller's arguments into the outbound request of an action, exactly
 * as the argument definitions say, or throws one VALIDATION_ERROR (400)
 * listing every problem. Nothing here does I/O: mappers and lookups go
 * through the injected dependencies.
 *
 *   const { request } = await buildOutboundRequest({ action, api, auth, host, arguments: body.arguments }, deps);
 *   // request: { method, url, query, headers, body }
 */
export async function buildOutboundRequest(input: BuildRequestInput, deps: ArgumentDependencies): Promise<BuiltRequest> {
  const { action, api, auth } = input;
  const problems: FieldProblem[] = [];
  const hostProblems: FieldProblem[] = [];
  const lookups = new Map<LookupList, Promise<ListOption[]>>();
  const lookup = (list: LookupList) => {
    let options = lookups.get(list);
    if (!options) lookups.set(list, (options = deps.lookupOptions(list, given)));
    return options;
  };

  let given: Record<string, unknown> = {};
  if (isJsonObject(input.arguments)) given = input.arguments;
  else if (input.arguments !== undefined && input.arguments !== null) problems.push(problem('arguments', 'type', `must be an object of argument values by key (got ${shown(input.arguments)})`));

  const actionNodes = argumentTree(action.arguments);
  const takesCursor = takesCursorArgument(action);
  const unknown = unknownKeys(action, actionNodes, Object.keys(given), takesCursor);
  problems.push(...unknown.problems);

  // Host variables: the API's and the auth's arguments, from what the connection stores.
  const hostNodes = [...argumentTree(api.arguments), ...argumentTree(auth?.arguments ?? [])];
  const hostCtx: CheckContext = { problems: hostProblems, lookup, strict: false };
  const hostChecked = await checkArguments(hostNodes, isJsonObject(input.host?.connection) ? input.host.connection : {}, 'connection.', hostCtx);
  const hostSent = await sendAll(hostNodes, hostChecked, 'connection.', hostProblems, deps);

  const checked = await checkArguments(actionNodes, given, '', { problems, lookup, strict: true });
  const sent = await sendAll(actionNodes, checked, '', problems, deps);

  const parts = emptyParts();
  // Action arguments go last, so they win over an API argument sent under the same name.
  for (const node of hostNodes) if (hostSent.has(node.arg.key)) place(node, hostSent.get(node.arg.key), parts, hostProblems, `connection.${node.arg.key}`);
  for (const node of actionNodes) if (sent.has(node.arg.key)) place(node, sent.get(node.arg.key), parts, problems, node.arg.key);
  parts.hasBody = [...hostNodes, ...actionNodes].some((n) => n.arg.location === 'Body');
  if (takesCursor) placeCursor(action.pagination!.definition, given[CURSOR_ARGUMENT], parts, problems);

  const variables = hostVariables(hostSent, input.host?.metadata);
  const baseUrl = fillUrlTemplate(api.baseUrl, variables, 'baseUrl', hostProblems, { originVariables: api.definition?.originVariables ?? [] });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(api.headers)) headers[name] = fillTemplate(value, variables, `header ${name}`, hostProblems, headerText);
  // Header arguments win over the API's headers of the same name, whatever the letter case (action arguments were placed last).
  for (const [name, value] of Object.entries(parts.headers)) {
    for (const other of Object.keys(headers)) if (other.toLowerCase() === name.toLowerCase()) delete headers[other];
    headers[name] = value;
  }
  const paramNode = (name: string) => actionNodes.find((n) => n.arg.location === 'Param' && sentName(n) === name);
  const paramKey = (name: string) => paramNode(name)?.arg.key ?? name;
  const url = joinUrl(baseUrl, fillPath(action.path, parts.params, problems, paramKey, (name) => paramNode(name)?.arg.allowSlashes === true));
  if (hostProblems.length === 0 && !URL.canParse(url)) {
    hostProblems.push(problem('baseUrl', 'hostVariable', `${shown(baseUrl)} is not a valid URL once its host variables are filled`));
  }

  if (problems.length + hostProblems.length > 0) throw validationError([...problems, ...hostProblems.map(withoutValue)], unknown.notBuilt);
  return {
    request: { method: action.method, url, query: parts.query, headers, body: parts.hasBody ? parts.body : undefined },
    arguments: Object.fromEntries(checked),
    variables,
    baseUrl,
  };
}

/**
 * Whether the action takes the `cursor` argument: it pages (a list or search
 * with a pagination of its own or the API's; a create or a delete that took a
 * cursor would hide a caller's mistake) and has no argument of that key itself.
 */
export function takesCursorArgument(action: ActionEntry): boolean {
  return action.pagination !== undefined && !action.arguments.some((a) => a.key === CURSOR_ARGUMENT && a.parent === undefined);
}

async function sendAll(nodes: readonly ArgumentNode[], checked: Map<string, unknown>, prefix: string, problems: FieldProblem[], deps: ArgumentDependencies): Promise<Map<string, unknown>> {
  const ctx = { problems, evaluateMapper: deps.evaluateMapper, arguments: escapedArguments(nodes, checked) };
  const sent = new Map<string, unknown>();
  for (const node of nodes) {
    if (!checked.has(node.arg.key)) continue;
    const value = await sendValue(node, checked.get(node.arg.key), `${prefix}${node.arg.key}`, ctx);
    if (value !== ABSENT && value !== undefined) sent.set(node.arg.key, value);
  }
  return sent;
}

/** The keys of `unknownKeys`: the first `limit` as problems, and how many more there are, counted without building them. */
export interface UnknownKeys {
  problems: FieldProblem[];
  notBuilt: number;
}

/**
 * The keys of the given arguments (`keys`) the action does not have: a typo, or a child sent at the top level
 * instead of inside its parent. At most
 * `limit` are built as problems (a VALIDATION_ERROR lists no more); the rest are counted: a body's worth of unknown
 * keys (85,000) built a problem for each, to list 100 of them.
 */
export function unknownKeys(action: ActionEntry, nodes: readonly ArgumentNode[], keys: readonly string[], takesCursor: boolean, limit = MAX_PROBLEMS): UnknownKeys {
  const topLevel = new Set(nodes.map((n) => n.arg.key));
  // Worked out once, not per key: a body of 80,000 unknown keys searched the arguments and wrote this list 80,000 times (~80 ms).
  const parents = new Map(action.arguments.filter((a) => a.parent !== undefined).map((a) => [a.key, a.parent!]));
  const known = nodes.filter((n) => !n.arg.hidden).map((n) => n.arg.key);
  if (takesCursor) known.push(CURSOR_ARGUMENT);
  const notAnArgument = `is not an argument of action ${action.id} (its arguments: ${known.join(', ') || 'none'})`;
  const problems: FieldProblem[] = [];
  let notBuilt = 0;
  for (const key of keys) {
    if (topLevel.has(key) || (key === CURSOR_ARGUMENT && takesCursor)) continue;
    if (problems.length >= limit) {
      notBuilt++;
      continue;
    }
    const parent = parents.get(key);
    if (parent !== undefined) {
      problems.push(problem(key, 'unknown', `is a field of ${parent}: send it inside ${parent}, as ${parent}.${key}`));
    } else {
      // An empty key would make an empty field name; it is shown quoted.
      problems.push(problem(key === '' ? '""' : key, 'unknown', notAnArgument));
    }
  }
  return { problems, notBuilt };
}

/**
 * A Cursor pagination's `cursor` goes where it says: a query parameter or a
 * body field (a dotted key nests, `pagination.starting_after`). The engine's own cursors (NextUrl, Offset, Page) are signed and
 * placed by the run (engine/core/pagination/); here they are only checked
 * to be strings.
 */
export function placeCursor(pagination: PaginationEntry['definition'], cursor: unknown, parts: RequestParts, problems: FieldProblem[]): void {
  if (cursor === undefined || cursor === null || cursor === '') return;
  if (typeof cursor !== 'string' && typeof cursor !== 'number') {
    problems.push(problem(CURSOR_ARGUMENT, 'type', `must be the string meta.cursor of the previous page (got ${shown(cursor)})`));
    return;
  }
  if (pagination.type !== 'Cursor') {
    // Checked fully (signature, action, connection, origin) when the run places it; a cursor not even of the form is refused here, before any work.
    if (typeof cursor !== 'string' || cursor.length > ENGINE_CURSOR_MAX_CHARS || !ENGINE_CURSOR.test(cursor)) {
      problems.push(problem(CURSOR_ARGUMENT, 'cursor', 'must be the meta.cursor of the previous page of this action, sent unchanged'));
    }
    return;
  }
  const { location, key } = pagination;
  if (location === 'Query') parts.query[key] = String(cursor);
  else {
    setPath(parts.body, key.split('.'), String(cursor)); // dots nest, as in a Body argument's external key
    parts.hasBody = true;
  }
}

/** A connection's values may be secrets (an API key): its problems say what is wrong, never what the value was. */
export function withoutValue(p: FieldProblem): FieldProblem {
  return p.field.startsWith('connection.') ? { ...p, message: p.message.replace(/ \(got .*\)$/s, '') } : p;
}
