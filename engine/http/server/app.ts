import Koa from 'koa';
import Router from '@koa/router';
import type { Services } from '../services.ts';
import type { AppState } from './context.ts';
import { directRoutes } from './direct-routes.ts';
import { jsonBody } from './middleware/json-body.ts';
import { knownQuery } from './middleware/known-query.ts';
import { V1_ENDPOINTS } from '../openapi/v1-endpoints.ts';
import { V2_ENDPOINTS } from '../openapi/v2-endpoints.ts';
import { requestId } from './middleware/request-id.ts';
import { requestEdges } from './middleware/request-edges.ts';
import { traceRequests } from '../observability/server-span.ts';
import { healthRoutes } from './health-routes.ts';
import { memberRoutes } from '../members/routes.ts';
import { endUserRoutes } from '../end-users/routes.ts';
import { companyRoutes } from '../companies/routes.ts';
import { tokenRoutes } from '../end-user-tokens/routes.ts';
import { openApiRoutes } from '../openapi/routes.ts';
import { apiDocsRoutes } from '../pages/api-docs/routes.ts';
import { sdkRoutes } from '../pages/sdk/routes.ts';
import { connectPageRoutes } from '../pages/connect-page/routes.ts';
import { definitionsRoutes } from '../definitions/routes.ts';
import { describeRoutes } from '../describe/routes.ts';
import { iconRoutes } from '../describe/icon-routes.ts';
import { appConfigurationRoutes } from '../app-configurations/routes.ts';
import { connectionRoutes } from '../connections/routes.ts';
import { installationRoutes } from '../installations/routes.ts';
import { connectRoutes } from '../connect/routes.ts';
import { runRoutes } from '../runs/routes.ts';
import { endUserCors } from '../embedding/cors.ts';
import { endUserConnectionRoutes } from '../end-user-connections/routes.ts';
import { endUserRunRoutes } from '../end-user-runs/routes.ts';
import { embeddingRoutes } from '../embedding/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { proxyRoutes, PROXY_PATHS } from '../proxy/routes.ts';
import { metricsRoutes } from '../observability/metrics-routes.ts';
import { mountedRoutes, type MountedHandler } from './mounts.ts';

/** Every feature's routes, in one list: the surface of the gateway at a glance; `mounts` are other surfaces' handlers (/mcp). */
export function featureRoutes(services: Services, mounts: readonly MountedHandler[] = []): Router<AppState>[] {
  return [
    healthRoutes(services),
    memberRoutes(services),
    endUserRoutes(services),
    tokenRoutes(services),
    companyRoutes(services),
    openApiRoutes(services),
    apiDocsRoutes(),
    sdkRoutes(),
    connectPageRoutes(services),
    definitionsRoutes(services),
    describeRoutes(services),
    iconRoutes(services),
    appConfigurationRoutes(services),
    connectionRoutes(services),
    installationRoutes(services),
    connectRoutes(services),
    embeddingRoutes(services),
    endUserConnectionRoutes(services),
    endUserRunRoutes(services),
    runRoutes(services),
    webhookRoutes(services),
    proxyRoutes(services),
    metricsRoutes(services.metrics, services.config.metrics.token ? { token: services.config.metrics.token } : null),
    mountedRoutes(mounts, services.config.publicBaseUrl),
  ];
}

/** Builds the HTTP app from configuration and dependencies; it does not listen. `mounts`: handlers of other surfaces, given by the composition root. */
export function createApp(services: Services, mounts: readonly MountedHandler[] = []): Koa<AppState> {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(requestId());
  app.use(traceRequests());
  app.use(requestEdges(services.logger, services.metrics));
  app.use(endUserCors(services));
  app.use(jsonBody({ streamed: PROXY_PATHS }));
  // A query parameter an operation's document does not declare is refused, not ignored.
  app.use(knownQuery([...V1_ENDPOINTS, ...V2_ENDPOINTS]));
  // One root router, so 405 answers know every method any feature mounts on a path.
  const root = new Router<AppState>();
  const routers = featureRoutes(services, mounts);
  for (const router of routers) root.use(router.routes());
  // The hot routes (the runs), looked up directly, their middleware composed once; the rest through the root router.
  app.use(directRoutes(routers, root));
  app.use(root.routes());
  app.use(root.allowedMethods());
  return app;
}
