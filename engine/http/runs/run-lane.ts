import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Services } from '../services.ts';
import type { AppState } from '../server/context.ts';
import type { Exchange } from '../server/exchange.ts';
import { bearerTokenOf } from '../../platform/auth/bearer.ts';
import { activeTracer } from '../../platform/tracing/tracer.ts';
import { recentActiveApiKey } from '../../tenancy/api-keys/api-keys.ts';
import { hostProblem } from '../server/middleware/host-header.ts';
import { BODY_LIMIT_BYTES, readJson } from '../server/middleware/json-body.ts';
import { requestIdOf } from '../server/middleware/request-id.ts';
import { requestLineWriter } from '../server/middleware/request-log.ts';
import { failureAnswer, JSON_TYPE } from '../server/middleware/errors.ts';
import { requestMetrics } from '../observability/http-metrics.ts';
import { envelopeOf, retryAfterOf, runUniversal, sendEnvelopeParts, UNIVERSAL_RUN } from './routes.ts';

const PREFIX = '/v2/universal/apps/';
/** A Content-Length the lane reads itself: 1 to 7 digits, no leading zero (the limit, 1 MiB, has 7). */
const PLAIN_LENGTH = /^[1-9][0-9]{0,6}$/;

/** A request the lane serves: its two slugs, as they stand in the path, and its caller's company. */
interface Taken {
  app: string;
  action: string;
  state: AppState;
}

/** The exchange the lane serves a run with: what the request line, the metrics and a run's facts read, and the route the metrics name. */
interface LaneExchange extends Exchange {
  readonly _matchedRoute: string;
}

/**
 * The universal run (`POST /v2/universal/apps/{appSlug}/actions/{actionSlug}/run`), served straight from
 * node:http in front of Koa (issue 31: Koa's context, its middleware chain and its respond path cost about a
 * fifth of a run's CPU, docs/benchmarks.md). It takes only the plain request a backend sends: its exact path
 * (no query string, no escape, no trailing slash), one valid Host, no Origin (a browser's request goes through
 * the CORS middleware), a JSON body of `application/json` with a Content-Length (no Content-Encoding or
 * chunked body), an API key admitted recently (requireApiKey's cache), and tracing off. Any other request,
 * and every failure of those checks, goes to `koa` as before, which answers it as it always has.
 *
 * What it does is what the chain does for such a request, through the same functions: the request id
 * (requestIdOf), the body's limits and JSON checks (readJson), the run (runUniversal), the envelope
 * (envelopeOf, sendEnvelopeParts), a failure's answer in the error shape (failureAnswer), the request line
 * (requestLineWriter) and the metrics (requestMetrics). The run specs hold both ways to the same answers.
 */
export function runLane(services: Services, koa: http.RequestListener): http.RequestListener {
  const { logger, store } = services;
  const record = requestMetrics(services.metrics);
  const writeLine = requestLineWriter(logger);

  return (req, res) => {
    let taken: Taken | null;
    try {
      taken = take(req);
    } catch (error) {
      // A defect in the checks must not throw out of the server's 'request' event (that ends the process): Koa answers.
      logger.error({ err: error }, 'the run lane could not read this request; Koa serves it');
      taken = null;
    }
    if (taken === null) return koa(req, res);
    serve(req, res, taken).catch((error: unknown) => {
      // Only a defect in the lane itself gets here (serve answers every failure of a run).
      logger.error({ err: error }, 'the run lane failed');
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': JSON_TYPE });
        res.end(JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'the gateway failed to handle this request; the request id identifies it in the logs' } }));
      } else res.destroy();
    });
  };

  function take(req: http.IncomingMessage): Taken | null {
    if (req.method !== 'POST') return null;
    const url = req.url!;
    if (!url.startsWith(PREFIX) || url.includes('?') || url.includes('%')) return null;
    const parts = url.split('/');
    if (parts.length !== 8 || parts[5] !== 'actions' || parts[7] !== 'run' || parts[4] === '' || parts[6] === '') return null;
    const { headers } = req;
    if (headers.origin !== undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return null;
    const type = headers['content-type'];
    if (type !== 'application/json' && type !== 'application/json; charset=utf-8') return null;
    const length = headers['content-length'];
    if (length === undefined || !PLAIN_LENGTH.test(length) || Number(length) > BODY_LIMIT_BYTES) return null;
    if (activeTracer() !== null || hostProblem(req) !== null) return null;
    const token = bearerTokenOf(headers.authorization);
    const key = token === null ? undefined : recentActiveApiKey(store, token);
    if (!key) return null;
    return {
      app: parts[4]!,
      action: parts[6]!,
      state: { requestId: requestIdOf(req), principal: { kind: 'apiKey', companyId: key.companyId, userId: key.userId, apiKeyId: key.id } },
    };
  }

  async function serve(req: http.IncomingMessage, res: http.ServerResponse, taken: Taken): Promise<void> {
    const started = performance.now();
    const exchange: LaneExchange = { method: 'POST', path: req.url!, status: 404, state: taken.state, req, res, socket: req.socket, _matchedRoute: UNIVERSAL_RUN };
    res.setHeader('X-Request-Id', taken.state.requestId);
    try {
      const outcome = await runUniversal(services, exchange, taken, await readJson(req), 'published');
      const parts = envelopeOf(exchange, outcome);
      exchange.status = outcome.status;
      // A caller that went away gets nothing written (as Koa's respond() checks).
      if (writable(res)) sendEnvelopeParts(res, outcome.status, parts, retryAfterOf(outcome));
    } catch (thrown) {
      fail(exchange, thrown);
    } finally {
      if (record) record(exchange, started);
      writeLine(exchange, started);
    }
  }

  /** A failure answered in the error shape, as requestEdges answers it; a body not received to its end closes the connection (close-unread.ts). */
  function fail(exchange: LaneExchange, thrown: unknown): void {
    const failure = failureAnswer(exchange, thrown, logger);
    exchange.status = failure.status;
    const { req, res } = exchange;
    if (failure.body === null || !writable(res) || res.headersSent) return;
    const headers: Record<string, string> = { 'Content-Type': JSON_TYPE };
    if (failure.wwwAuthenticate) headers['WWW-Authenticate'] = 'Bearer';
    if (failure.retryAfter !== undefined) headers['Retry-After'] = failure.retryAfter;
    if (!req.complete) headers.Connection = 'close';
    const text = JSON.stringify(failure.body);
    headers['Content-Length'] = String(Buffer.byteLength(text));
    res.writeHead(failure.status, headers);
    res.end(text);
  }
}

/** Whether an answer can still be written, as Koa's ctx.writable says. */
function writable(res: http.ServerResponse): boolean {
  if (res.writableEnded) return false;
  const socket = res.socket;
  return !socket || socket.writable;
}
