import type { Middleware } from 'koa';
import type { Logger } from '../../../platform/log/logger.ts';
import type { GatewayMetrics } from '../../../platform/metrics/gateway-metrics.ts';
import type { AppState } from '../context.ts';
import { requestMetrics } from '../../observability/http-metrics.ts';
import { answerFailure, refuseEmptyAnswer } from './errors.ts';
import { closeIfUnread } from './close-unread.ts';
import { requestLineWriter } from './request-log.ts';
import { refuseBadHost } from './host-header.ts';

/**
 * What happens around every request, in one async frame: an HTTP/1.1 request
 * without Host, with two, or with one that names no host is refused
 * (host-header.ts); the error envelope (errors.ts)
 * turns a failure, or a route's empty 404/405, into the answer;
 * then the request is counted and timed (http-metrics.ts), its line logged
 * (request-log.ts), and a body left unread closes the connection
 * (close-unread.ts), in that order, whatever happened. These were four
 * middlewares, each an async frame awaiting the next on every request: their
 * steps are the same, one clock reading serves the metrics and the line.
 */
export function requestEdges(logger: Logger, metrics: GatewayMetrics | undefined): Middleware<AppState> {
  const record = requestMetrics(metrics);
  const writeLine = requestLineWriter(logger);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      refuseBadHost(ctx);
      await next();
      refuseEmptyAnswer(ctx);
    } catch (thrown) {
      answerFailure(ctx, thrown, logger);
    } finally {
      if (record) record(ctx, started);
      writeLine(ctx, started);
      closeIfUnread(ctx);
    }
  };
}
