import type { Logger } from '../../../platform/log/logger.ts';
import type { Exchange } from '../exchange.ts';
import { shownPath } from '../../proxy/shown-path.ts';
import { directStream, requestLine } from './request-line.ts';

/**
 * One line per request: method, path (no query string: it may carry secrets; no proxied app path, shown-path.ts), status, duration, request id;
 * for a run, its story too (ctx.state.run: company, app, action, version, connection, upstream status and
 * time, retries, outcome), ids and counts only.
 *
 * The line holds exactly these fields, each named here (never a spread of an object that could grow a
 * secret), so it is written without the logger's redaction: with REDACTED_PATHS' wildcard paths pino's
 * redaction cost ~13 µs of a ~17 µs line (docs/benchmarks.md, the run path's request level). It is written
 * out as pino would write it (request-line.ts) straight to the logger's destination, where it can be.
 *
 * Answers a writer of one answered request's line (`started`: performance.now() when it came), for
 * requestEdges (request-edges.ts); below the logger's level (LOG_LEVEL=warn, say) it writes nothing, the
 * level read per request, as it may be changed.
 */
export function requestLineWriter(logger: Logger): (ctx: Exchange, started: number) => void {
  const lines = requestLineLogger(logger);
  const stream = directStream(lines);
  return (ctx, started) => {
    if (!lines.isLevelEnabled('info')) return;
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const run = ctx.state.run;
    if (stream) stream.write(requestLine({ reqId: ctx.state.requestId, method: ctx.method, path: shownPath(ctx.path), status: ctx.status, durationMs, run }, Date.now()));
    else lines.info(
      run
        ? {
            reqId: ctx.state.requestId,
            method: ctx.method,
            path: shownPath(ctx.path),
            status: ctx.status,
            durationMs,
            companyId: run.companyId,
            app: run.app,
            action: run.action,
            version: run.version,
            connectionId: run.connectionId,
            upstreamStatus: run.upstreamStatus,
            upstreamMs: run.upstreamMs,
            retries: run.retries,
            outcome: run.outcome,
          }
        : { reqId: ctx.state.requestId, method: ctx.method, path: shownPath(ctx.path), status: ctx.status, durationMs },
      'request',
    );
  };
}

/** The logger request lines are written with: `logger`'s level and destination, without its redaction (see requestLineWriter). */
export function requestLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}
