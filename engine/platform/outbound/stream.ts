import { performance } from 'node:perf_hooks';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../errors/index.ts';
import type { EgressPolicy } from '../egress/policy.ts';
import { traceCall } from '../tracing/index.ts';
import { CallStop, onAbort, type Abortable } from './call-stop.ts';
import { classifyError } from './classify-error.ts';
import { OutboundError, timeoutError, tooLargeError } from './outbound-error.ts';
import { decodersFor, decodingError, notModifiedLength } from './read-body.ts';
import { redirectHop, type Hop, type RedirectPolicy } from './redirect.ts';
import type { OutboundSettings } from './settings.ts';
import type { UrlTargets } from './targets.ts';
import type { QueryValue } from './types.ts';
import { DEFAULT_USER_AGENT } from './user-agent.ts';
import { checkDestination, flattenHeaders, pathOf, requestHeaders } from './wire.ts';

/** The limits of one streamed call, and the settings that set them (named in its errors). */
export interface StreamLimits {
  /** The most request body bytes sent; past it the call fails with PAYLOAD_TOO_LARGE. */
  maxRequestBytes: number;
  /** The most response body bytes, as received and as decoded, each; past it the body fails with RESPONSE_TOO_LARGE. */
  maxResponseBytes: number;
  /** One whole call: every hop, and the response body to its end. */
  totalTimeoutMs: number;
  settings: { maxRequestBytes: string; maxResponseBytes: string; totalTimeoutMs: string };
}

export interface StreamRequest {
  method: string;
  /** Absolute http: or https: URL, its query included. */
  url: string;
  headers?: Record<string, string>;
  /** Appended to the URL's query (the auth's). */
  query?: Record<string, QueryValue>;
  /**
   * Bytes (sent again as they are when a 307 or 308 redirect asks), or a
   * stream, read once: a redirect that would repeat it is not followed (its
   * 3xx is the answer).
   */
  body?: Buffer | Readable;
  /** A stream's length when known: sent as Content-Length (many APIs refuse a chunked upload), and held to it. */
  bodyLength?: number;
  redirect?: RedirectPolicy;
  /**
   * Where a redirect may lead (the proxy: back into the app only under its
   * base path and api.yaml's proxy.paths): one to a URL this refuses is not
   * followed, its 3xx is the answer. Absent: wherever the policy allows.
   */
  follows?: (url: URL) => boolean;
  /** The caller went away: the call, and its response body, stop. */
  signal?: Abortable;
  limits: StreamLimits;
}

export interface StreamResponse {
  status: number;
  /** Lower-case names, repeated ones joined with ", " (as the app sent them: Content-Encoding and Content-Length included). */
  headers: Record<string, string>;
  /**
   * The body, its Content-Encoding (gzip, deflate, br) undone: `decoded`
   * says so, and the app's Content-Length no longer holds then. It fails
   * with an OutboundError (RESPONSE_TOO_LARGE, UPSTREAM_TIMEOUT,
   * UPSTREAM_PROTOCOL_ERROR, UPSTREAM_UNREACHABLE) when the app or a limit
   * cuts it short. Read it to its end, or call discard().
   */
  body: Readable;
  decoded: boolean;
  /** The URL that answered (after redirects), and how many redirects were followed. */
  url: string;
  redirects: number;
  /** Milliseconds from the call to the answer's headers. */
  durationMs: number;
  /** The body is not wanted (the call is sent again): its connection is closed and the call's timer stopped. */
  discard(): void;
}

interface Parts {
  dispatcher: Dispatcher;
  policy: EgressPolicy;
  settings: OutboundSettings;
  targets: UrlTargets;
}

/**
 * The streaming send of the HTTP client: bodies never held whole, both ways.
 * Every hop is checked by the egress policy (and the egress-checked Agent
 * checks every address it connects to), a redirect is re-checked and
 * followed by the call's redirect policy, the connect, headers and body
 * (idle) timeouts are the client's, and the total time and the sizes are
 * the request's own limits: the total covers the response body to its end.
 */
export function createStreamSender(parts: Parts): (request: StreamRequest) => Promise<StreamResponse> {
  const { dispatcher, policy, settings, targets } = parts;

  return async function stream(request: StreamRequest): Promise<StreamResponse> {
    const started = performance.now();
    const { limits } = request;
    const headers = requestHeaders(request.headers);
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    headers['user-agent'] ??= DEFAULT_USER_AGENT;
    const streamed = request.body instanceof Readable;
    if (streamed && request.bodyLength !== undefined) headers['content-length'] = String(request.bodyLength);
    const first: Hop = { method: request.method.toUpperCase(), url: targets.of(request.url, request.query), headers, body: streamed ? undefined : (request.body as Buffer | undefined) };
    const stop = new CallStop();
    const deadline = { expired: false };
    const timer = setTimeout(() => {
      deadline.expired = true;
      stop.abort(timeoutError(first.url.host, 'total', limits.totalTimeoutMs, limits.settings.totalTimeoutMs));
    }, limits.totalTimeoutMs);
    const caller = request.signal;
    const stopListening = caller ? onAbort(caller, () => stop.abort(caller.reason)) : null;
    if (caller?.aborted) stop.abort(caller.reason);
    const finish = () => {
      clearTimeout(timer);
      stopListening?.();
    };
    const upload = streamed ? countedUpload(request.body as Readable, limits) : null;
    try {
      return await traceCall(first, () => sendHops(first, upload, stop, deadline, started, finish, request));
    } catch (error) {
      finish();
      upload?.destroy();
      throw error;
    }
  };

  async function sendHops(
    first: Hop,
    upload: Readable | null,
    stop: CallStop,
    deadline: { expired: boolean },
    started: number,
    finish: () => void,
    request: StreamRequest,
  ): Promise<StreamResponse> {
    const { limits } = request;
    let hop = first;
    for (let redirects = 0; ; redirects++) {
      const host = hop.url.host;
      try {
        checkDestination(hop.url, policy);
        const response = await dispatcher.request({
          origin: hop.url.origin,
          path: pathOf(hop.url),
          method: hop.method as Dispatcher.HttpMethod,
          headers: hop.headers,
          // The stream is sent on the first hop only; a later hop carries bytes, or nothing.
          body: redirects === 0 && upload ? upload : (hop.body ?? null),
          signal: stop,
          headersTimeout: settings.headersTimeoutMs,
          bodyTimeout: settings.bodyTimeoutMs,
        });
        const responseHeaders = flattenHeaders(response.headers as Record<string, string | string[]>);
        const next = followed(hop, response.statusCode, responseHeaders.location, request, upload !== null);
        if (next) {
          await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          if (redirects >= settings.maxRedirects) {
            throw new OutboundError('UPSTREAM_PROTOCOL_ERROR', `${host} redirected more than ${settings.maxRedirects} times (OUTBOUND_MAX_REDIRECTS)`, {
              host,
              limit: settings.maxRedirects,
              setting: 'OUTBOUND_MAX_REDIRECTS',
            });
          }
          hop = next;
          continue;
        }
        const declared = Number(responseHeaders['content-length']);
        if (hop.method !== 'HEAD' && !responseHeaders['content-encoding'] && declared > limits.maxResponseBytes) {
          response.body.on('error', () => undefined);
          response.body.destroy();
          throw tooLargeError(host, limits.maxResponseBytes, limits.settings.maxResponseBytes);
        }
        const body = deliveredBody(response.statusCode, response.body, responseHeaders['content-encoding'], host, limits, (error) => classified(error, host, deadline, request.signal, limits), finish);
        return {
          status: response.statusCode,
          headers: responseHeaders,
          body: body.stream,
          decoded: body.decoded,
          url: hop.url.href,
          redirects,
          durationMs: Math.round(performance.now() - started),
          discard: () => {
            body.stream.destroy();
            finish();
          },
        };
      } catch (error) {
        throw classified(error, host, deadline, request.signal, limits);
      }
    }
  }

  /**
   * The redirect to follow, or null: none asked, redirects off, one to a
   * URL the request's `follows` refuses, or one that would repeat a body
   * streamed once (a 307 or 308, a 301 or 302 of a PUT: the method kept,
   * the body gone), whose 3xx is then the answer. One that turns the
   * request into a GET without a body (303, a 301 or 302 of a POST) is
   * followed.
   */
  function followed(hop: Hop, status: number, location: string | undefined, request: StreamRequest, streamedOnce: boolean): Hop | null {
    if (settings.maxRedirects === 0) return null;
    const next = redirectHop(hop, status, location, request.redirect);
    if (next && request.follows && !request.follows(next.url)) return null;
    if (next && streamedOnce && next.method === hop.method && hop.method !== 'GET' && hop.method !== 'HEAD') return null;
    return next;
  }

  /** What a failure is to the caller: its own abort as it is; past the deadline, the total timeout (the request's setting); else as the client classifies it. */
  function classified(error: unknown, host: string, deadline: { expired: boolean }, signal: Abortable | undefined, limits: StreamLimits): unknown {
    if (signal?.aborted && !deadline.expired) return error;
    if (error instanceof GatewayError) return error;
    if (deadline.expired) return timeoutError(host, 'total', limits.totalTimeoutMs, limits.settings.totalTimeoutMs);
    return classifyError(error, host, settings, null);
  }
}

/**
 * The caller's body as sent: counted, and failed with PAYLOAD_TOO_LARGE (413)
 * past the limit, which stops the call (undici aborts a request whose body
 * fails).
 */
function countedUpload(source: Readable, limits: StreamLimits): Readable {
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      sent += chunk.length;
      if (sent > limits.maxRequestBytes) {
        return done(GatewayError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limits.maxRequestBytes} bytes (${limits.settings.maxRequestBytes})`));
      }
      done(null, chunk);
    },
  });
  pipeline(source, counter, () => undefined);
  return counter;
}

/**
 * The response body as the caller reads it: decoded from its
 * Content-Encoding, the bytes received and decoded each held to the limit,
 * every failure as the OutboundError it means; `finish` runs once when it
 * ends, fails or is destroyed (the call's timer stops).
 */
function deliveredBody(
  status: number,
  raw: Readable,
  contentEncoding: string | undefined,
  host: string,
  limits: StreamLimits,
  classify: (error: unknown) => unknown,
  finish: () => void,
): { stream: Readable; decoded: boolean } {
  raw.on('error', () => undefined);
  let decoders: Transform[];
  try {
    decoders = contentEncoding ? decodersFor(contentEncoding, host) : [];
  } catch (refused) {
    raw.destroy();
    finish();
    throw refused;
  }
  const tooLarge = () => tooLargeError(host, limits.maxResponseBytes, limits.settings.maxResponseBytes);
  let wireBytes = 0;
  const countWire = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      wireBytes += chunk.length;
      if (wireBytes > limits.maxResponseBytes) return done(tooLarge());
      done(null, chunk);
    },
  });
  const source = pipeline([raw, countWire, ...decoders], () => undefined) as unknown as Readable;
  async function* chunks(): AsyncGenerator<Buffer> {
    let decodedBytes = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        decodedBytes += chunk.length;
        if (decodedBytes > limits.maxResponseBytes) throw tooLarge();
        yield chunk;
      }
    } catch (error) {
      if (error instanceof OutboundError) throw error;
      // No bytes at all under a Content-Encoding (a HEAD's, a 204's or 304's answer): no content, not a broken gzip.
      if (wireBytes === 0 && decodingError(error, host, contentEncoding ?? '')) return;
      // A 304 with the Content-Length its 200 would have: no content either.
      if (wireBytes === 0 && notModifiedLength(status, error)) return;
      throw decodingError(error, host, contentEncoding ?? '') ?? classify(error);
    } finally {
      finish();
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), decoded: decoders.length > 0 };
}
