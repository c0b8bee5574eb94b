import { GatewayError } from '../../platform/errors/index.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';

/**
 * Counts one token renewal by app and outcome when it settles: `renewed`,
 * or the failure's error code in lower case (auth_refresh_failed: the grant
 * is gone; auth_provider_unavailable; token_exchange_failed; ...).
 */
export function observeRenewal<T>(metrics: GatewayMetrics | undefined, app: string, renewal: Promise<T>): Promise<T> {
  if (!metrics) return renewal;
  renewal.then(
    () => metrics.tokenRenewals.inc({ app, outcome: 'renewed' }),
    (error: unknown) => metrics.tokenRenewals.inc({ app, outcome: error instanceof GatewayError ? error.code.toLowerCase() : 'error' }),
  );
  return renewal;
}
