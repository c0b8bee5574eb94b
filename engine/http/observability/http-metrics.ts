import type { Exchange } from '../server/exchange.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts and times every request by the router's route template (never the
 * path: ids would make a series per record), method and status, and counts
 * a run by its outcome from the facts it recorded on ctx.state.run.
 * Answers what records one answered request (`started`: performance.now()
 * when it came), for requestEdges (request-edges.ts); null without metrics.
 */
export function requestMetrics(metrics: GatewayMetrics | undefined): ((ctx: Exchange, started: number) => void) | null {
  if (!metrics) return null;
  return (ctx, started) => {
    const labels = { route: routeLabel(ctx), method: METHODS.has(ctx.method) ? ctx.method : 'OTHER', status: String(ctx.status) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    const run = ctx.state.run;
    if (run?.outcome) metrics.runs.inc({ app: run.app, action: run.action, outcome: run.outcome });
  };
}

/** The template the router matched (`/v2/connections/:id`); `unmatched` for any path no route has (a 404 or a scan). */
function routeLabel(ctx: Exchange): string {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}
