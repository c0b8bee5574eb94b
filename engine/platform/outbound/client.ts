import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import type { Dispatcher } from 'undici';
import { createEgressPolicy, type EgressPolicy } from '../egress/policy.ts';
import { createOutboundAgent } from './agent.ts';
import { CallStop, onAbort, stopReason } from './call-stop.ts';
import { classifyError } from './classify-error.ts';
import { encodeBody } from './encode.ts';
import { OutboundError } from './outbound-error.ts';
import { deferrableJsonBytes, parseBody } from './parse-body.ts';
import { DeferredJson, deferBody } from './deferred-json.ts';
import { notModifiedLength, readBody } from './read-body.ts';
import { redirectHop, type Hop } from './redirect.ts';
import { createUrlTargets } from './targets.ts';
import { DEFAULT_OUTBOUND_SETTINGS, type OutboundSettings } from './settings.ts';
import { DEFAULT_USER_AGENT } from './user-agent.ts';
import { traceCall } from '../tracing/index.ts';
import { OWN_TURN_FROM_BYTES, ownTurn } from '../turns/index.ts';
import type { OutboundRequest, OutboundResponse } from './types.ts';
import { checkDestination, flattenHeaders, pathOf, requestHeaders } from './wire.ts';
import { createStreamSender, type StreamRequest, type StreamResponse } from './stream.ts';

export interface HttpClient {
  /**
   * Sends one request to a third-party app and reads the whole response.
   * Resolves with any HTTP status (a 404 or 500 is a response, not an
   * error). Rejects with EgressDeniedError (EGRESS_DENIED) or OutboundError
   * (UPSTREAM_TIMEOUT, UPSTREAM_UNREACHABLE, RESPONSE_TOO_LARGE, UPSTREAM_BUSY,
   * UPSTREAM_PROTOCOL_ERROR).
   */
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /**
   * Sends one request whose bodies stream both ways (the proxy), under the
   * same egress policy, redirect rules and connect, headers and body
   * timeouts, with the limits the request gives: resolves once the answer's
   * headers are in, its body a stream (stream.ts).
   */
  stream(request: StreamRequest): Promise<StreamResponse>;
  readonly settings: OutboundSettings;
  /** Closes the pools this client opened (not an injected dispatcher). */
  close(): Promise<void>;
}

export interface HttpClientOptions {
  settings?: Partial<OutboundSettings>;
  /** Refuses loopback, private, link-local, metadata ... addresses; with an empty allow-list when not given. */
  policy?: EgressPolicy;
  /**
   * Replaces the egress-checked keep-alive Agent (an undici MockAgent in
   * tests). IP-literal destinations are still checked by send(); names are
   * checked only by the default Agent's lookup.
   */
  dispatcher?: Dispatcher;
  /** Extra TLS options for the default Agent (a private CA, for instance). */
  tls?: ConnectionOptions;
}

/** A call's total time limit: how long, which setting gave it, and whether it ran out. */
interface Deadline {
  expired: boolean;
  ms: number;
  setting: string;
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const settings: OutboundSettings = { ...DEFAULT_OUTBOUND_SETTINGS, ...options.settings };
  const policy = options.policy ?? createEgressPolicy();
  const owned = options.dispatcher ? null : createOutboundAgent(settings, policy, options.tls);
  const dispatcher = options.dispatcher ?? owned!;
  const targets = createUrlTargets();

  async function send(outbound: OutboundRequest): Promise<OutboundResponse> {
    const started = performance.now();
    const headers = requestHeaders(outbound.headers);
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    // App calls, token and refresh calls, code and credential exchanges, lookups: all come through here.
    headers['user-agent'] ??= DEFAULT_USER_AGENT;
    const body = encodeBody(outbound.body, headers);
    const hop: Hop = { method: outbound.method.toUpperCase(), url: targets.of(outbound.url, outbound.query), headers, body };
    const stop = new CallStop();
    // The call's own limit (api.yaml timeoutMs) where it has one, else OUTBOUND_TOTAL_TIMEOUT_MS.
    const deadline: Deadline = outbound.timeoutMs === undefined
      ? { expired: false, ms: settings.totalTimeoutMs, setting: 'OUTBOUND_TOTAL_TIMEOUT_MS' }
      : { expired: false, ms: outbound.timeoutMs, setting: outbound.timeoutSetting ?? 'timeoutMs' };
    const timer = setTimeout(() => {
      deadline.expired = true;
      stop.abort(stopReason('total timeout'));
    }, deadline.ms);
    const caller = outbound.signal;
    const stopListening = caller ? onAbort(caller, () => stop.abort(caller.reason)) : null;
    if (caller?.aborted) stop.abort(caller.reason);
    try {
      return await traceCall(hop, () => sendHops(outbound, hop, stop, deadline, started));
    } finally {
      clearTimeout(timer);
      stopListening?.();
    }
  }

  async function sendHops(outbound: OutboundRequest, first: Hop, signal: CallStop, deadline: Deadline, started: number): Promise<OutboundResponse> {
    let hop = first;

    for (let redirects = 0; ; redirects++) {
      const host = hop.url.host;
      try {
        checkDestination(hop.url, policy);
        // The dispatcher is given the origin and path it would otherwise parse out of the URL again.
        const response = await dispatcher.request({
          origin: hop.url.origin,
          path: pathOf(hop.url),
          method: hop.method as Dispatcher.HttpMethod,
          headers: hop.headers,
          body: hop.body ?? null,
          signal,
          headersTimeout: settings.headersTimeoutMs,
          bodyTimeout: settings.bodyTimeoutMs,
        });
        const responseHeaders = flattenHeaders(response.headers as Record<string, string | string[]>);
        let next: Hop | null = null;
        if (settings.maxRedirects > 0) {
          try {
            next = redirectHop(hop, response.statusCode, responseHeaders.location, outbound.redirect);
          } catch (refused) {
            await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
            throw refused;
          }
        }
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
        if (hop.method !== 'HEAD' && !responseHeaders['content-encoding'] && declared > settings.maxResponseBytes) {
          response.body.on('error', () => undefined);
          response.body.destroy();
          throw new OutboundError(
            'RESPONSE_TOO_LARGE',
            `the response from ${host} is larger than ${settings.maxResponseBytes} bytes (OUTBOUND_MAX_RESPONSE_BYTES); the call was aborted`,
            { host, limit: settings.maxResponseBytes, setting: 'OUTBOUND_MAX_RESPONSE_BYTES' },
          );
        }
        const read = await readBody(response.body, responseHeaders['content-encoding'], { maxBytes: settings.maxResponseBytes, maxBuffered: settings.maxBufferedBytes }, host).catch(
          (error: unknown) => {
            // A 304 with the Content-Length its 200 would have (read-body.ts): no content, not a broken answer.
            if (notModifiedLength(response.statusCode, error)) return { bytes: Buffer.alloc(0), wireBytes: 0 };
            throw error;
          },
        );
        // A large body is parsed at a turn of its own: ten arriving together are not parsed in one turn (platform/turns).
        if (read.bytes.length >= OWN_TURN_FROM_BYTES) await ownTurn();
        // A large JSON body the caller will map elsewhere is not parsed here (deferred-json.ts); in another charset than UTF-8 it is made UTF-8 first.
        const unparsed = outbound.deferJsonFrom !== undefined && read.bytes.length >= outbound.deferJsonFrom ? deferrableJsonBytes(read.bytes, responseHeaders['content-type']) : null;
        const parsed = unparsed ? { body: null, jsonUtf8: true as const } : parseBody(read.bytes, responseHeaders['content-type']);
        const answered: OutboundResponse = {
          status: response.statusCode,
          headers: responseHeaders,
          ...parsed,
          // A body made UTF-8 (deferrableJsonBytes) is that text's bytes; rawBytes counts what the app sent.
          rawBody: unparsed ?? read.bytes,
          rawBytes: read.bytes.length,
          wireBytes: read.wireBytes,
          durationMs: Math.round(performance.now() - started),
          url: hop.url.href,
          redirects,
        };
        return unparsed ? deferBody(answered, new DeferredJson(unparsed)) : answered;
      } catch (error) {
        if (outbound.signal?.aborted && !deadline.expired) throw error;
        throw classifyError(error, host, settings, deadline.expired ? deadline : null);
      }
    }
  }

  return {
    send,
    stream: createStreamSender({ dispatcher, policy, settings, targets }),
    settings,
    close: async () => {
      await owned?.close();
    },
  };
}
