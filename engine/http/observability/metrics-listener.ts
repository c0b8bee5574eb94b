import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { HttpSettings } from '../services.ts';
import type { Logger } from '../../platform/log/logger.ts';
import type { AppState } from '../server/context.ts';
import { createHttpServer } from '../server/http-server.ts';
import { errorEnvelope } from '../server/middleware/errors.ts';
import { requestId } from '../server/middleware/request-id.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';
import { metricsRoutes } from './metrics-routes.ts';

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * The metrics listener of METRICS_PORT, on METRICS_HOST: GET /metrics
 * without authentication (reach it only from the cluster: bind it to a
 * private address, or keep the port out of the Service/ingress), every
 * other path a 404 in the error shape. Null when METRICS_PORT is unset.
 */
export async function serveMetrics(config: HttpSettings, metrics: GatewayMetrics, logger: Logger): Promise<MetricsListener | null> {
  if (config.metrics.port === undefined) return null;
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(requestId());
  app.use(errorEnvelope(logger));
  app.use(metricsRoutes(metrics, 'open').routes());
  const server: http.Server = createHttpServer(app.callback(), config.server, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: Error) => reject(new Error(`METRICS_PORT ${config.metrics.port} on METRICS_HOST ${config.metrics.host} cannot be opened: ${error.message}`)));
    server.listen(config.metrics.port, config.metrics.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.metrics.host, port }, 'metrics served on their own listener (GET /metrics, unauthenticated)');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
