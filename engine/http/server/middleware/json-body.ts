import bourne from '@hapi/bourne';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { GatewayError } from '../../../platform/errors/index.ts';
import { checkJsonTextDepth, checkJsonValues } from '../../../platform/validation/json-limits.ts';
import type { AppState } from '../context.ts';
import { contentCoding } from './content-coding.ts';
import { decodedBody } from './decoded-body.ts';
import { readBody } from './read-body.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Request bodies are JSON only: any other media type is 415, more than 1 MiB
 * is 413, malformed JSON is 400, JSON nested deeper than JSON_MAX_DEPTH, a
 * number too large for a double, or a string or key that is not well-formed
 * Unicode (`"\ud800"`) is 400 VALIDATION_ERROR naming the path. A body may be gzip, deflate or br
 * encoded: another Content-Encoding is 415, one that does not decode is 400
 * INVALID_BODY_ENCODING, and the 1 MiB limit counts the bytes as sent and as
 * decoded (decoding stops there). A request without a body leaves
 * `ctx.state.body` undefined; each route decides whether it needs one.
 * Paths matching `streamed` (the proxy's) are left alone: their routes
 * stream the body on, within limits of their own.
 */
export function jsonBody(options: { streamed?: RegExp } = {}): Middleware<AppState> {
  const { streamed } = options;
  return (ctx, next) => {
    // An empty body (Content-Length: 0) is no body, whatever its Content-Type; without one, no async frame here.
    const { req } = ctx;
    if (!METHODS_WITH_BODY.has(req.method!) || !hasBody(req)) return next();
    // Bodies the route streams on as they are (the proxy's): never read, parsed or limited here.
    if (streamed?.test(ctx.path)) return next();
    const type = req.headers['content-type'];
    // The usual two answered at once; anything else as type-is (through ctx.is) decides.
    if (type !== 'application/json' && type !== 'application/json; charset=utf-8' && !ctx.is('application/json', '+json')) {
      throw GatewayError.of('UNSUPPORTED_MEDIA_TYPE', `request bodies must be application/json (got ${type || 'no Content-Type'})`);
    }
    return readJson(req).then((body) => {
      ctx.state.body = body;
      return next();
    });
  };
}

/**
 * Whether the request has a body to read, as `ctx.is() !== null && ctx.request.length !== 0`
 * decided without their parsing: a Transfer-Encoding or a numeric Content-Length (type-is's
 * hasBody), and not a Content-Length of 0.
 */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || Number.isNaN(Number(length)))) return false;
  return length === undefined || length === '' || ~~Number(length) !== 0;
}

/**
 * The body's text (readBody, which stops at the limit; decodedBody first
 * for a gzip, deflate or br body), its depth checked on the text before it is parsed (JSON.parse of a 1 MiB
 * body of nested arrays holds the event loop ~0.5 s; the scan ~10 ms), then
 * parsed as co-body's strict JSON parser does: an object or array only (another
 * value named, notContainer), and
 * a `__proto__` key refused (@hapi/bourne); then a number too large for a
 * double or a string or key that is not well-formed Unicode (a lone
 * surrogate escape) is refused, naming its path (checkJsonValues).
 */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readText(req);
  if (!text) return {};
  // Before anything else walks it: no parser, handler, validator or store sees JSON nested deeper than the limit.
  checkJsonTextDepth(text, '');
  if (!STRICT_JSON_START.test(text)) throw GatewayError.of('INVALID_JSON', notContainer(text));
  let parsed: unknown;
  try {
    parsed = bourne.parse(text, { protoAction: 'error' });
  } catch (error) {
    // Valid JSON with a member named __proto__ (spelled out or escaped), which would set the prototype of an object a
    // handler copies it into: said as what it is, not as a syntax error.
    if ((error as Error).message === BOURNE_PROTO_MESSAGE) throw GatewayError.of('INVALID_JSON', PROTO_REFUSED);
    throw GatewayError.of('INVALID_JSON', `request body is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  // Numbers too large to hold and strings or keys that are not well-formed Unicode: the parsed body is walked only
  // when its text has a long exponent, a long run of digits or a surrogate's escape.
  checkJsonValues(text, parsed, '');
  return parsed;
}

/** What @hapi/bourne throws for an own `__proto__` member (json-body.spec.ts holds the answer to it). */
const BOURNE_PROTO_MESSAGE = 'Object contains forbidden prototype property';
const PROTO_REFUSED = 'request body has a member named "__proto__", which no body may hold (it would set an object\'s prototype): rename or remove it';

/**
 * Why a body that does not start with `{` or `[` is refused (co-body's strict mode refused it as "invalid JSON, only
 * supports object and array", untrue of null, a string or a number): valid JSON of another shape is named as such.
 */
function notContainer(text: string): string {
  if (/^[\x20\x09\x0a\x0d]*$/.test(text)) return 'request body is not valid JSON: it holds only white space';
  let value: unknown;
  try {
    // Not an object or array, so one value without nesting: parsed in time linear in the body's bounded size.
    value = JSON.parse(text);
  } catch {
    return 'request body is not valid JSON: it does not start with { or [';
  }
  const what = value === null ? 'null' : typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : 'a boolean';
  return `request body must be a JSON object or array, not ${what}`;
}

/** JSON text that is an object or an array (RFC 7159 whitespace first), as co-body's strict mode has it. */
const STRICT_JSON_START = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

async function readText(req: IncomingMessage): Promise<string> {
  const coding = contentCoding(req.headers['content-encoding']);
  if (coding === 'identity') {
    const length = req.headers['content-length'];
    return await readBody(req, length === undefined ? null : Number(length), BODY_LIMIT_BYTES, false);
  }
  const decoded = decodedBody(req, coding, BODY_LIMIT_BYTES);
  try {
    return await readBody(decoded.stream, null, BODY_LIMIT_BYTES, true);
  } catch (error) {
    if (isDecodingError(error)) {
      throw GatewayError.of('INVALID_BODY_ENCODING', `request body is not valid ${coding} data (Content-Encoding: ${coding}): ${(error as Error).message}`);
    }
    if ((error as { type?: string }).type === 'request.aborted') throw GatewayError.of('INVALID_JSON', 'request body was incomplete');
    throw error;
  } finally {
    decoded.stop();
  }
}

/** zlib's and brotli's errors: a numeric errno and a Z_* or ERR_* code (a network error's code is E*). */
function isDecodingError(error: unknown): boolean {
  const { errno, code } = (error ?? {}) as { errno?: unknown; code?: unknown };
  return typeof errno === 'number' && typeof code === 'string' && /^(Z_|ERR_)/.test(code);
}
