import { GatewayError } from '../../platform/errors/index.ts';
import type { RunFacts } from './run-facts.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';

/**
 * One call to a third-party app, timed: counted by app, action and the
 * app's status (or the error's kind: upstream_timeout, egress_denied, ...),
 * and its status and time added to the run's facts for the request log.
 */
export async function observeAppCall<T extends { status: number }>(
  metrics: GatewayMetrics | undefined,
  facts: RunFacts | undefined,
  labels: { app: string; action: string },
  send: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let status = 'error';
  try {
    const response = await send();
    status = String(response.status);
    if (facts) facts.upstreamStatus = response.status;
    return response;
  } catch (error) {
    status = callErrorKind(error);
    throw error;
  } finally {
    const ms = performance.now() - started;
    if (facts) facts.upstreamMs = Math.round(((facts.upstreamMs ?? 0) + ms) * 100) / 100;
    if (metrics) {
      const withStatus = { app: labels.app, action: labels.action, status };
      metrics.appCalls.inc(withStatus);
      metrics.appCallDuration.observe(withStatus, ms / 1000);
    }
  }
}

/** The closed set of codes the HTTP client rejects with, in lower case; a caller's abort is `cancelled`. */
function callErrorKind(error: unknown): string {
  if (error instanceof GatewayError) return error.code.toLowerCase();
  if ((error as Error | undefined)?.name === 'AbortError') return 'cancelled';
  return 'error';
}
