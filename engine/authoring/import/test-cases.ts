import jsonata from 'jsonata';
import { formatDate, parseIsoDate } from '../../core/arguments/dates.ts';
import { engineCode, engineMessage, MAX_TEXT } from '../../core/run/app-error.ts';
import type { ActionDefinition, Argument, TestCase } from './imported-app.ts';
import { isObj, type Obj } from './json-access.ts';
import type { PagingPlan } from './pagination-detection.ts';
import type { ResponsePlan } from './response-plan.ts';
import { argumentValue, MAX_EXAMPLE_JSON, sampleOf } from './sample-values.ts';

/** What an action's offline cases are made from, besides the action itself. */
export interface CaseInput {
  action: ActionDefinition;
  /** The base URL as a connection with default values fills it. */
  baseUrl: string;
  /** Host variables a case's connection must set (API arguments without a default). */
  metadata: Record<string, string>;
  bodyEncoding: 'Json' | 'Form';
  auth: { credentials: Record<string, string>; headers: Record<string, string>; query: Record<string, string> };
  response: ResponsePlan;
  paging: PagingPlan | undefined;
  /** The description's example values, by argument key. */
  examples: Map<string, unknown>;
  /** A documented failure to show, when there is one the engine answers as a failure. */
  failure: { status: number; body: unknown } | undefined;
  /** Whether a run of the action with a renewable OAuth 2.0 token would renew it on a 401 (so no 401 case). */
  renewsOn401: boolean;
  /** api.yaml's appError expression, if any. */
  appError: string | undefined;
}

const NEXT_TOKEN = 'next-page-token';

/**
 * The offline cases of one imported action (docs/definitions.md, "Offline
 * tests"): the request the engine must send for its required arguments
 * (defaults included) answered with the description's example response, or
 * one made from the response schema, and the envelope the mapping makes of
 * it; for a paged listing, the next page's cursor and the request it makes;
 * and a documented failure answered as one. `note` is told about a value
 * rule dropped because no value for it could be made.
 */
export async function casesFor(input: CaseInput, note: (message: string) => void): Promise<TestCase[]> {
  const { action } = input;
  const args = action.arguments ?? [];
  const given: Record<string, unknown> = {};
  for (const arg of args.filter((a) => a.parent === undefined && a.required && !a.hidden)) {
    const value = valueFor(arg, args, input.examples, note);
    if (value !== undefined) given[arg.key] = value;
  }
  const request = expectedRequest(input, given);
  const connection = { ...(Object.keys(input.metadata).length ? { metadata: input.metadata } : {}), credentials: input.auth.credentials };
  const body = responseBody(input);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const meta: Record<string, unknown> = {};
  const paging = input.paging;
  const rows = () => dataOf(input, body, given);
  if (paging?.next && isObj(body)) {
    if ('field' in paging.next) {
      const url = `${request.url}?page=2`;
      setPath(body, paging.next.field, paging.next.kind === 'token' ? NEXT_TOKEN : /uri$/i.test(paging.next.field.at(-1)!) ? new URL(url).pathname + '?page=2' : url);
      meta.cursor = paging.next.kind === 'token' ? NEXT_TOKEN : { url };
    }
  }
  if (paging?.next && 'linkHeader' in paging.next) {
    const url = `${request.url}?page=2`;
    headers.link = `<${url}>; rel="next"`;
    meta.cursor = { url };
  }
  if (paging?.next && 'lastId' in paging.next) {
    if (paging.mappingCursor && isObj(body)) setMore(body, paging.mappingCursor);
    const last = rows().at(-1);
    if (isObj(last) && last.id !== undefined && last.id !== null) meta.cursor = String(last.id);
  }
  const first: TestCase = {
    name: `sends the request and maps ${!input.response.json ? 'the empty response' : input.response.example !== undefined ? "the description's example response" : 'a response made from its schema'}`,
    connection,
    arguments: given,
    request,
    response: { status: input.response.status, headers, ...(body !== undefined ? { body } : {}) },
    expect: { success: true, data: rows(), meta },
  };
  const cases = [first];
  const next = nextPageCase(input, given, request, connection);
  if (next) cases.push(next);
  const failure = input.failure;
  if (failure && !(failure.status === 401 && input.renewsOn401) && !(failure.status === 404 && (action.operation === 'list' || action.operation === 'search') && !input.response.okField) && failure.status !== 429) {
    cases.push({
      name: `answers the documented ${failure.status} as a failure`,
      connection,
      arguments: given,
      request: { method: action.method, url: request.url },
      response: { status: failure.status, headers: { 'content-type': 'application/json' }, ...(failure.body !== undefined ? { body: failure.body } : {}) },
      expect: { success: false, data: [], meta: { appError: await expectedAppError(input.appError, failure.status, failure.body) } },
    });
  }
  return cases;
}

/**
 * The `meta.appError` of a failure: each of code and message from api.yaml's
 * appError when it gives a usable text, else the engine's (HTTP_<status> and
 * the reason phrase; APP_ERROR for a failure in a 2xx), as
 * engine/core/run/app-error.ts documents.
 */
async function expectedAppError(expression: string | undefined, status: number, body: unknown): Promise<Record<string, unknown>> {
  let fromApi: Record<string, unknown> = {};
  if (expression) {
    try {
      const value: unknown = await jsonata(expression).evaluate({ status, headers: { 'content-type': 'application/json' }, body });
      if (isObj(value)) fromApi = value;
    } catch {
      // An expression that fails gives nothing: the engine's default stands.
    }
  }
  const usable = (value: unknown) => (typeof value === 'string' && value !== '') || typeof value === 'number' || typeof value === 'boolean' ? String(value).slice(0, MAX_TEXT) : undefined;
  return { status, code: usable(fromApi.code) ?? engineCode(status), message: usable(fromApi.message) ?? engineMessage(status) };
}

/** A caller's value for a required argument: with its required children, for an Object or Array built from them. */
function valueFor(arg: Argument, args: Argument[], examples: Map<string, unknown>, note: (message: string) => void): unknown {
  const children = args.filter((a) => a.parent === arg.key);
  if (children.length && (arg.dataType === 'Object' || arg.dataType === 'Array')) {
    const value: Record<string, unknown> = {};
    for (const child of children.filter((c) => c.required && !c.hidden)) {
      const inner = valueFor(child, args, examples, note);
      if (inner !== undefined) value[child.key] = inner;
    }
    return arg.dataType === 'Array' ? [value] : value;
  }
  let value = argumentValue(arg, examples.get(arg.key));
  if (value === undefined && arg.pattern !== undefined) {
    note(`argument ${arg.key}: pattern ${JSON.stringify(arg.pattern)} left out: no sample value matching it could be made for the offline cases`);
    delete arg.pattern;
    value = argumentValue(arg, examples.get(arg.key));
  }
  return value;
}

/** What the engine sends for the given arguments, defaults filled in, as a case's `request` compares it. */
function expectedRequest(input: CaseInput, given: Record<string, unknown>): NonNullable<TestCase['request']> {
  const { action } = input;
  const args = action.arguments ?? [];
  const query: Record<string, string | string[]> = { ...input.auth.query };
  const headers: Record<string, string> = { ...input.auth.headers };
  const body: Obj = {};
  let path = action.path;
  let hasBody = false;
  for (const arg of args.filter((a) => a.parent === undefined)) {
    if (arg.location === 'Body') hasBody = true;
    const value = arg.hidden ? arg.default : (own(given, arg.key) ?? arg.default);
    if (value === undefined || value === null) continue;
    const sent = sentValue(arg, value, args);
    const name = arg.externalKey ?? arg.key;
    switch (arg.location) {
      case 'Query':
        query[name] = Array.isArray(sent) ? (sent.length === 1 ? text(sent[0]) : sent.map(text)) : text(sent);
        break;
      case 'Header':
        headers[name.toLowerCase()] = Array.isArray(sent) ? sent.map(text).join(', ') : text(sent);
        break;
      case 'Param':
        path = path.replace(new RegExp(`:${name}(?![A-Za-z0-9_])`), encodeURIComponent(Array.isArray(sent) ? sent.map(text).join(',') : text(sent)));
        break;
      case 'Body':
        if (arg.asBody && isObj(sent)) {
          for (const [field, v] of Object.entries(sent)) if (!Object.hasOwn(body, field)) body[field] = v;
        } else setPath(body, name.split('.'), sent);
        break;
    }
  }
  const url = `${input.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
  let sentBody: unknown = null;
  if (hasBody) sentBody = input.bodyEncoding === 'Form' ? formFields(body) : body;
  return { method: action.method, url, query, headers, body: sentBody };
}

/** A checked value as it is sent: dates in their format, multiple values joined by their delimiter, children under their external keys. */
function sentValue(arg: Argument, value: unknown, args: Argument[]): unknown {
  if (arg.multipleValues) {
    const values = (Array.isArray(value) ? value : [value]).map((v) => scalar(arg, v));
    return arg.multipleValues.delimiter === undefined ? values : values.map(text).join(arg.multipleValues.delimiter);
  }
  const children = args.filter((a) => a.parent === arg.key);
  if (children.length && arg.dataType === 'Object' && isObj(value)) return childrenSent(arg, value, children, args);
  if (children.length && arg.dataType === 'Array' && Array.isArray(value)) return value.map((element) => (isObj(element) ? childrenSent(arg, element, children, args) : element));
  return scalar(arg, value);
}

function childrenSent(parent: Argument, value: Obj, children: Argument[], args: Argument[]): Obj {
  const out: Obj = {};
  const prefix = `${parent.externalKey ?? parent.key}.`;
  for (const child of children) {
    const v = child.hidden ? child.default : (own(value, child.key) ?? child.default);
    if (v === undefined || v === null) continue;
    const external = (child.externalKey ?? child.key).replace(/\[\]/g, '');
    setPath(out, (external.startsWith(prefix) ? external.slice(prefix.length) : external).split('.'), sentValue(child, v, args));
  }
  return out;
}

function scalar(arg: Argument, value: unknown): unknown {
  const type = arg.multipleValues?.dataType ?? arg.dataType;
  if (type === 'Date' && typeof value === 'string') {
    const parsed = parseIsoDate(value);
    if ('ms' in parsed) return formatDate(parsed.ms, arg.format === 'Date' || arg.format === 'UnixSeconds' || arg.format === 'UnixMilliseconds' || arg.format === 'ISO8601' ? arg.format : undefined);
  }
  return value;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A form body as the fake network reads it back: `a[b]` and `a[0]` fields, values as text; no fields is no body. */
function formFields(body: Obj): Record<string, string | string[]> | null {
  const fields: Record<string, string | string[]> = {};
  const add = (key: string, value: unknown) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) value.forEach((item, i) => add(`${key}[${i}]`, item));
    else if (isObj(value)) for (const [member, item] of Object.entries(value)) add(`${key}[${member}]`, item);
    else {
      const had = own(fields, key) as string | string[] | undefined;
      fields[key] = had === undefined ? String(value) : Array.isArray(had) ? [...had, String(value)] : [had, String(value)];
    }
  };
  for (const [key, value] of Object.entries(body)) add(key, value);
  return Object.keys(fields).length ? fields : null;
}

/** The success body of the first case: the description's example when it has a short one, else one made from the schema. */
function responseBody(input: CaseInput): unknown {
  const plan = input.response;
  if (!plan.json) return undefined;
  let body: unknown = plan.example !== undefined && JSON.stringify(plan.example).length <= MAX_EXAMPLE_JSON ? structuredClone(plan.example) : plan.schema ? sampleOf(plan.schema, 'response') : undefined;
  if (body === undefined) body = plan.data.from === 'field' ? { [plan.data.field]: [] } : plan.listed ? [] : {};
  if (plan.okField && isObj(body)) body[plan.okField] = true;
  if (plan.data.from === 'field' && isObj(body) && body[plan.data.field] === undefined) body[plan.data.field] = plan.listed ? [] : {};
  return body;
}

/** The envelope's data for a body, as the imported mapping and the engine's envelope rules make it. */
function dataOf(input: CaseInput, body: unknown, given: Record<string, unknown>): unknown[] {
  const plan = input.response;
  let value: unknown = plan.data.from === 'field' ? (isObj(body) ? body[plan.data.field] : undefined) : plan.data.from === 'body' || !plan.json ? body : undefined;
  if (!plan.json) value = undefined;
  let rows = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  if (input.action.operation === 'delete') {
    const id = deletedId(input.action, given);
    if (id !== undefined && id !== null) rows = rows.length === 0 ? [{ id }] : rows.map((row) => (isObj(row) && (row.id === undefined || row.id === null) ? { id, ...row } : row));
  }
  return rows;
}

/** The id a delete answers: its last path parameter's value, else a Query or Body value sent as `id` (engine/core/run/deleted-id.ts). */
function deletedId(action: ActionDefinition, given: Record<string, unknown>): unknown {
  const args = action.arguments ?? [];
  const last = [...action.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!).at(-1);
  if (last !== undefined) {
    const arg = args.find((a) => a.location === 'Param' && a.parent === undefined && (a.externalKey ?? a.key) === last);
    if (arg) return own(given, arg.key) ?? arg.default;
  }
  const byId = args.find((a) => a.parent === undefined && (a.location === 'Query' || a.location === 'Body') && (a.externalKey ?? a.key) === 'id');
  return byId ? (own(given, byId.key) ?? byId.default) : undefined;
}

/** The second case of a paged listing: the cursor of the first page sent back, and the request it makes. */
function nextPageCase(input: CaseInput, given: Record<string, unknown>, first: NonNullable<TestCase['request']>, connection: TestCase['connection']): TestCase | undefined {
  const paging = input.paging;
  if (!paging) return undefined;
  const empty = input.response.data.from === 'field' ? { [input.response.data.field]: [], ...(input.response.okField ? { [input.response.okField]: true } : {}) } : [];
  const expect = { success: true, data: [] };
  const { pagination } = paging;
  if (pagination.type === 'Cursor') {
    const request = { ...first, query: { ...first.query } };
    if (pagination.location === 'Query') request.query[pagination.key] = NEXT_TOKEN;
    else if (isObj(request.body)) setPath(request.body, pagination.key.split('.'), NEXT_TOKEN);
    else request.body = (() => { const b: Obj = {}; setPath(b, pagination.key.split('.'), NEXT_TOKEN); return input.bodyEncoding === 'Form' ? formFields(b) : b; })();
    if (input.bodyEncoding === 'Form' && pagination.location === 'Body') delete request.body;
    return { name: 'sends the cursor of the next page', connection, arguments: { ...given, cursor: NEXT_TOKEN }, request, response: { status: input.response.status, body: empty }, expect };
  }
  if (pagination.type === 'NextUrl') {
    const url = `${first.url}?page=2`;
    return { name: 'requests the next page at the URL of the cursor', connection, arguments: { ...given, cursor: { url } }, request: { method: first.method, url: first.url, query: { ...input.auth.query, page: '2' } }, response: { status: input.response.status, body: empty }, expect };
  }
  if (pagination.type === 'Offset' && pagination.location === 'Query') {
    return { name: 'sends the offset of the next page', connection, arguments: { ...given, cursor: { offset: 20 } }, request: { ...first, query: { ...first.query, [pagination.offsetKey]: '20' } }, response: { status: input.response.status, body: empty }, expect };
  }
  if (pagination.type === 'Page' && pagination.location === 'Query') {
    return { name: 'sends the number of the next page', connection, arguments: { ...given, cursor: { page: 2 } }, request: { ...first, query: { ...first.query, [pagination.pageKey]: '2' } }, response: { status: input.response.status, body: empty }, expect };
  }
  return undefined;
}

/** Sets the field of a Stripe-like `has_more ? rows[-1].id` to true, so the first page has a next one. */
function setMore(body: Obj, expression: string): void {
  const match = /^body\.(\w+) \?/.exec(expression);
  if (match) body[match[1]!] = true;
}

function setPath(target: Obj, path: string[], value: unknown): void {
  let at = target;
  path.forEach((key, i) => {
    // Defined, not assigned: a field named __proto__ is a member like any other.
    if (i === path.length - 1) define(at, key, value);
    else {
      if (!isObj(own(at, key))) define(at, key, {});
      at = at[key] as Obj;
    }
  });
}


/** `object[key]` when it is the object's own: a property named constructor or toString is not Object's function. */
function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function define(object: Obj, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
