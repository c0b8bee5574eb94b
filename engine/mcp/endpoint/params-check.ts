import { ProtocolErrorCode, specTypeSchemas } from '@modelcontextprotocol/server';
import { cutText } from '../../platform/cut-text.ts';

/** Why a message is refused before the SDK sees it: the JSON-RPC error code and the words for the agent. */
export interface MessageProblem {
  code: number;
  message: string;
}

/**
 * What the SDK would answer unhelpfully, said here as what it is, naming the member and what it must be:
 *
 * - an empty body: a parse error (-32700) saying so;
 * - a body that is not a JSON-RPC 2.0 request or notification (the SDK: "the request body is not a valid
 *   JSON-RPC message", whatever was wrong): invalid request (-32600);
 * - params of the wrong shape for the methods whose params the SDK checks itself (it answers an internal
 *   error, -32603, or invalid params, with its validator's issues dumped as JSON for the message): invalid
 *   params (-32602), in words.
 *
 * A client's response (a result or an error, no method) is left to the SDK. A batch never gets here
 * (mcp-endpoint.ts refuses it).
 */
export function messageProblem(body: unknown): MessageProblem | null {
  // No body at all (the SDK: "Parse error: Invalid JSON", as if it had read one).
  if (body === undefined) return { code: ProtocolErrorCode.ParseError, message: 'the request body is empty: send one JSON-RPC message, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}' };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const message = body as Record<string, unknown>;
  if (!('method' in message) && ('result' in message || 'error' in message)) return null;
  if (valuesBeyond(message, MAX_MESSAGE_VALUES)) {
    return {
      code: ProtocolErrorCode.InvalidRequest,
      message: `the message holds more than ${MAX_MESSAGE_VALUES} values besides params.arguments: no MCP request needs that many (a tool's arguments go in params.arguments)`,
    };
  }
  // params that are not an object are said below, with the method's name.
  const shapeIssues = issuesOf('id' in message ? specTypeSchemas.JSONRPCRequest : specTypeSchemas.JSONRPCNotification, body).filter(
    (issue) => !(issue.path.length === 1 && issue.path[0] === 'params'),
  );
  if (shapeIssues.length) return { code: ProtocolErrorCode.InvalidRequest, message: `not a JSON-RPC 2.0 request or notification: ${said(shapeIssues)}` };
  const problem = paramsProblem(message);
  return problem === null ? null : { code: ProtocolErrorCode.InvalidParams, message: problem };
}

/**
 * The most values (members and items, at any depth) a message may hold outside a tool call's `params.arguments`: an
 * initialize or a tools/list of a real client holds a few dozen. The SDK's schemas check every one of them on the
 * event loop (80,000 members of capabilities.experimental took it 1.2 s, and the gateway as long again to say which
 * were wrong), so a larger message is refused before either looks at it. A tool's arguments are the run's to check.
 */
const MAX_MESSAGE_VALUES = 1000;

/** Whether `message` holds more than `limit` values outside params.arguments; stops counting there (never lists a large object's keys). */
function valuesBeyond(message: Record<string, unknown>, limit: number): boolean {
  let count = 0;
  const visit = (value: unknown, skipArguments: boolean): boolean => {
    if (++count > limit) return true;
    if (value === null || typeof value !== 'object') return false;
    if (Array.isArray(value)) {
      for (const item of value) if (visit(item, false)) return true;
      return false;
    }
    for (const key in value) {
      if (skipArguments && key === 'arguments') continue;
      if (visit((value as Record<string, unknown>)[key], false)) return true;
    }
    return false;
  };
  for (const key in message) {
    if (visit(message[key], key === 'params')) return true;
  }
  return false;
}

function paramsProblem(body: Record<string, unknown>): string | null {
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string') return null;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) return `params of ${method}: must be an object (or left out)`;
  const given = (params ?? {}) as Record<string, unknown>;
  if (method === 'tools/list' && given.cursor !== undefined && typeof given.cursor !== 'string') {
    return 'params.cursor: must be a string, the nextCursor a tools/list answer gave (leave it out for the first page)';
  }
  if (method === 'tools/call') {
    if (typeof given.name !== 'string') return 'params.name: must be a string, the name of a tool tools/list gave';
    const args = given.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) return "params.arguments: must be an object of the tool's arguments (or left out)";
  }
  if (method === 'initialize') {
    const missing = INITIALIZE_PARAMS.filter((name) => given[name] === undefined);
    if (missing.length) return `params of initialize: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required`;
  }
  const schema = METHOD_SCHEMAS[method];
  if (!schema) return null;
  // The tool's arguments are checked as an object above and by the run; the schema would walk each of their keys again.
  const shallow = method === 'tools/call' && given.arguments !== undefined ? { ...body, params: { ...given, arguments: {} } } : body;
  const issues = issuesOf(schema, shallow);
  return issues.length === 0 ? null : `params of ${method}: ${said(issues)}`;
}

const INITIALIZE_PARAMS = ['protocolVersion', 'capabilities', 'clientInfo'] as const;

/** A zod issue as the SDK's schemas give it. */
interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  values?: unknown[];
  errors?: Issue[][];
}

/** A Standard Schema's synchronous check, as the SDK's spec type schemas give it. */
interface Checkable {
  '~standard': { validate(value: unknown): { issues?: ReadonlyArray<unknown> } | Promise<unknown> };
}

/** The issues `schema` finds in `value` (zod's, with their code, as the SDK's schemas are zod's); none when it passes. */
function issuesOf(schema: Checkable, value: unknown): Issue[] {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) return [];
  return (result.issues ?? []) as Issue[];
}

/** The schemas the SDK checks these methods' params with (the same ones, so what passes here the SDK takes). */
const METHOD_SCHEMAS: Record<string, Checkable | undefined> = {
  initialize: specTypeSchemas.InitializeRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
};

/** The most issues one answer lists (a message can have as many wrong members as it likes). */
const MAX_ISSUES = 5;

function said(issues: Issue[]): string {
  const listed = issues.slice(0, MAX_ISSUES).map((issue) => `${pathOf(issue.path)}: ${ruleOf(issue)}`);
  if (issues.length > MAX_ISSUES) listed.push(`and ${issues.length - MAX_ISSUES} more`);
  return listed.join('; ');
}

function pathOf(path: PropertyKey[]): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${cutText(String(key), 60)}`)).join('') || 'the message';
}

/** What the member must be, in words: `must be a string (got a number)`, `is required (a string)`, `must be "2.0"`. */
function ruleOf(issue: Issue): string {
  const isId = issue.path.length === 1 && issue.path[0] === 'id';
  const rule = ruleWords(issue);
  return isId ? `${rule} (leave it out for a notification)` : rule;
}

function ruleWords(issue: Issue): string {
  if (issue.code === 'invalid_type' && issue.expected) {
    const received = /received (\w+)$/.exec(issue.message)?.[1];
    if (received === 'undefined') return `is required (${article(issue.expected)})`;
    return received ? `must be ${article(issue.expected)} (got ${received === 'null' ? 'null' : article(received)})` : `must be ${article(issue.expected)}`;
  }
  if (issue.code === 'invalid_value' && issue.values?.length) return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
  if (issue.code === 'invalid_union' && issue.errors?.length) {
    const expected = issue.errors.map((branch) => (branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0 ? branch[0]!.expected : undefined));
    if (expected.every((e): e is string => e !== undefined)) return `must be ${[...new Set(expected)].map(article).join(' or ')}`;
    return 'is none of the forms it may take';
  }
  return issue.message.replace(/^Invalid input: /, '').slice(0, 200);
}

function article(type: string): string {
  // zod's record is, on the wire, an object of any keys.
  if (type === 'record') type = 'object';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
