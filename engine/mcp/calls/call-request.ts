import { Readable } from 'node:stream';
import { proxyCall, PROXY_ACTION } from '../../core/proxy/proxy-call.ts';
import { errorOutcome, type RunFacts } from '../../core/run/run-facts.ts';
import { connectionEndUser } from '../../core/run/select-connection.ts';
import { GatewayError, MAX_PROBLEMS, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { findConnection } from '../../tenancy/connections/connections.ts';
import type { McpServices } from '../mcp-services.ts';
import { REQUEST_ARGUMENTS, REQUEST_METHODS } from '../tools/request-tool.ts';
import type { RequestTarget } from '../tools/tool-set.ts';
import { pickConnection, type ToolCall } from './call-tool.ts';
import { cutText } from '../../platform/cut-text.ts';
import { cancelledResult, errorResult, type ToolResult } from './tool-result.ts';

/** The request the agent asked for, its arguments checked. */
interface AgentRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

/**
 * One call of `<app>_request`: the agent's own request sent by
 * core/proxy/proxy-call.ts, as /v2/proxy sends a caller's (the path rules,
 * the app's `proxy` rules, the headers that pass, the credentials, one
 * renewal on a 401, rate-limit retries for idempotent methods, the egress
 * policy, the connection's secrets redacted from the answer). The answer is
 * read up to what the result can show: its status, headers and body (parsed
 * when it is JSON) as structuredContent, and as text capped at
 * MCP_RESULT_MAX_CHARS. An app's error status is a result with isError.
 */
export async function callRequest(services: McpServices, call: ToolCall<RequestTarget>): Promise<ToolResult> {
  const { target } = call;
  let args: unknown = call.arguments ?? {};
  let connectionId = target.connections[0]!.id;
  if (target.connections.length > 1) {
    const picked = pickConnection(target, args);
    if (picked instanceof GatewayError) return errorResult(picked, services.config.mcp.resultMaxChars);
    ({ connectionId, args } = picked);
  }
  const request = agentRequest(args);
  if (request instanceof GatewayError) return errorResult(request, services.config.mcp.resultMaxChars);
  const facts: RunFacts = { companyId: call.companyId, app: target.version.app.slug, action: PROXY_ACTION, version: String(target.version.version), connectionId, retries: 0 };
  call.recordRun(facts);
  try {
    const connection = await findConnection(services, call.companyId, connectionId);
    const answer = await proxyCall(services.run, services.config.proxy, {
      companyId: call.companyId,
      version: target.version,
      connection,
      endUser: await connectionEndUser(services, connection),
      method: request.method,
      path: request.path,
      query: request.query,
      headers: request.headers,
      body: request.body === null ? null : { stream: Readable.from([request.body]), length: request.body.length },
      retry: 'idempotent',
      signal: call.signal,
      facts,
    });
    const maxChars = services.config.mcp.resultMaxChars;
    // Enough bytes for a body that fits the result, with room for the JSON of structuredContent; what is past it is never read.
    const read = await readUpTo(answer.body, maxChars * 4);
    facts.outcome = answer.status === 429 ? 'rate_limited' : answer.status >= 400 ? 'app_error' : 'success';
    return answerResult(answer.status, answer.headers, read, maxChars);
  } catch (error) {
    facts.outcome = errorOutcome(error, call.signal.aborted);
    if (error instanceof GatewayError && error.code !== 'INTERNAL_ERROR' && error.code !== 'CREDENTIALS_UNREADABLE') return errorResult(error, services.config.mcp.resultMaxChars);
    // The client cancelled the call or went away: the run stopped on that, and nothing failed.
    if (call.signal.aborted) return cancelledResult();
    services.logger.error({ reqId: call.requestId, err: error }, 'mcp: tools/call of a request tool failed');
    return errorResult(GatewayError.of('INTERNAL_ERROR', `the gateway failed to run this tool; request id ${call.requestId} identifies it in the gateway's logs`), services.config.mcp.resultMaxChars);
  }
}

const NOT_AN_ARGUMENT = `is not an argument of this tool (its arguments: ${REQUEST_ARGUMENTS.join(', ')})`;

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The tool's arguments checked: every problem named with its field and rule, as an action's are. */
function agentRequest(args: unknown): AgentRequest | GatewayError {
  const given = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const problems: FieldProblem[] = [];
  // The first MAX_PROBLEMS unknown names (the most a VALIDATION_ERROR lists) as problems, the rest counted: a body's worth of them built one each.
  let notBuilt = 0;
  for (const name of Object.keys(given)) {
    if ((REQUEST_ARGUMENTS as readonly string[]).includes(name)) continue;
    if (problems.length < MAX_PROBLEMS) problems.push({ field: name, rule: 'unknown', message: NOT_AN_ARGUMENT });
    else notBuilt++;
  }
  const { method, path, query, headers, body } = given;
  if (typeof method !== 'string' || !(REQUEST_METHODS as readonly string[]).includes(method.toUpperCase())) {
    problems.push({ field: 'method', rule: method === undefined ? 'required' : 'option', message: `must be one of ${REQUEST_METHODS.join(', ')} (got ${method === undefined ? 'nothing' : cutText(JSON.stringify(method), 40)})` });
  }
  if (path === undefined || path === null || path === '') {
    problems.push({ field: 'path', rule: 'required', message: "is required: the path under the app's base URL, e.g. /users/42" });
  } else if (typeof path !== 'string') {
    problems.push({ field: 'path', rule: 'type', message: `must be a string: the path under the app's base URL, e.g. /users/42 (got ${cutText(JSON.stringify(path), 40)})` });
  } else if (path.length > 2048) {
    problems.push({ field: 'path', rule: 'maxLength', message: 'must be at most 2048 characters' });
  }
  const params = new URLSearchParams();
  if (query !== undefined) {
    if (query === null || typeof query !== 'object' || Array.isArray(query)) {
      problems.push({ field: 'query', rule: 'type', message: 'must be an object of parameter names and values' });
    } else {
      for (const [name, value] of Object.entries(query)) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') params.append(name, String(value));
        else problems.push({ field: `query.${name}`, rule: 'type', message: 'must be a string, a number or a boolean' });
      }
    }
  }
  const sentHeaders: Record<string, string> = { accept: 'application/json' };
  if (headers !== undefined) {
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
      problems.push({ field: 'headers', rule: 'type', message: 'must be an object of header names and values' });
    } else {
      for (const [name, value] of Object.entries(headers)) {
        // Named here: the proxy's own check says only that some header name is not a token.
        if (!HEADER_NAME.test(name)) problems.push({ field: `headers.${cutText(name, 60)}`, rule: 'header-name', message: "is not a valid header name: an HTTP token of letters, digits and !#$%&'*+.^_`|~-" });
        else if (typeof value === 'string') sentHeaders[name.toLowerCase()] = value;
        else problems.push({ field: `headers.${name}`, rule: 'type', message: 'must be a string' });
      }
    }
  }
  const upper = typeof method === 'string' ? method.toUpperCase() : '';
  let bytes: Buffer | null = null;
  if (body !== undefined && body !== null) {
    if (upper === 'GET') problems.push({ field: 'body', rule: 'forbidden', message: 'a GET sends no body' });
    else if (typeof body === 'string' && sentHeaders['content-type'] !== undefined) bytes = Buffer.from(body);
    else {
      bytes = Buffer.from(JSON.stringify(body));
      sentHeaders['content-type'] = 'application/json';
    }
  }
  if (problems.length > 0) return validationError(problems, notBuilt);
  // The path as /v2/proxy/{connectionId}/ is followed by it: without its one leading slash; a query string in it joins `query`.
  const [pathPart, inPath] = splitQuery((path as string).replace(/^\//, ''));
  const queryString = [inPath, params.toString()].filter((q) => q !== '').join('&');
  if (bytes !== null) sentHeaders['content-length'] = String(bytes.length);
  return { method: upper, path: pathPart, query: queryString, headers: sentHeaders, body: bytes };
}

function splitQuery(path: string): [string, string] {
  const at = path.indexOf('?');
  return at < 0 ? [path, ''] : [path.slice(0, at), path.slice(at + 1)];
}

/** The first `limit` bytes of a body, and whether there was more (the rest is not read: the stream is destroyed). */
async function readUpTo(body: Readable, limit: number): Promise<{ bytes: Buffer; whole: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    chunks.push(buffer);
    size += buffer.length;
    // One byte past the limit tells a longer body from one of exactly `limit` bytes.
    if (size > limit) {
      body.destroy();
      return { bytes: Buffer.concat(chunks).subarray(0, limit), whole: false };
    }
  }
  return { bytes: Buffer.concat(chunks), whole: true };
}

/** The app's answer as a tool result: status, headers and body (JSON parsed when whole), the text capped at maxChars. */
function answerResult(status: number, headers: Record<string, string>, read: { bytes: Buffer; whole: boolean }, maxChars: number): ToolResult {
  const text = read.bytes.toString('utf8');
  const json = read.whole && /\bjson\b/i.test(headers['content-type'] ?? '') ? parseJson(text) : undefined;
  const { 'proxy-status': _status, ...shown } = headers;
  const structured: Record<string, unknown> = { status, headers: shown, body: json === undefined ? text : json };
  if (!read.whole) structured.truncated = true;
  const head = status >= 400 ? `HTTP ${status} (the app answered with an error)` : `HTTP ${status}`;
  const bodyText = json === undefined ? text : JSON.stringify(json);
  const whole = `${head}\n${bodyText}`;
  let shownText = whole;
  if (!read.whole || whole.length > maxChars) {
    const note = (kept: number) =>
      read.whole
        ? `\n[the answer is ${bodyText.length} characters: the text shows the first ${kept}; structuredContent.body holds it whole]`
        : `\n[the answer is longer than ${read.bytes.length} bytes: the text shows the first ${kept} characters and the rest was not read; ask for less (the app's paging or filter parameters)]`;
    const room = Math.max(0, maxChars - head.length - 1 - note(bodyText.length).length);
    const shown = cutText(bodyText, room);
    shownText = `${head}\n${shown}${note(shown.length)}`;
  }
  return { content: [{ type: 'text', text: shownText }], structuredContent: structured, isError: status >= 400 };
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
