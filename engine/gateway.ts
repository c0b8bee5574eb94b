import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveAdminSocket } from './admin/admin-socket.ts';
import { bootstrap, type BootstrapOutcome } from './tenancy/companies/bootstrap.ts';
import type { Config } from './config/config.ts';
import { resolveEncryptionKeys } from './platform/crypto/encryption-keys.ts';
import { createKeyring } from './platform/crypto/keyring.ts';
import { secretsReadableCheck } from './tenancy/credentials/readability-check.ts';
import { AnalysisCache, DefinitionsLoader, DefinitionsRegistry, watchDefinitions } from './core/definitions/index.ts';
import type { Logger } from './platform/log/logger.ts';
import { createApp } from './http/server/app.ts';
import { createHttpServer } from './http/server/http-server.ts';
import { runLane } from './http/runs/run-lane.ts';
import { connectionCutter } from './http/server/shutdown-cut.ts';
import { createMcpEndpoint } from './mcp/endpoint/mcp-endpoint.ts';
import type { ReadinessCheck, Services } from './http/services.ts';
import { storeLogging } from './platform/store/store-log.ts';
import { acquireDataDirLock } from './platform/store/embedded/data-dir-lock.ts';
import { openStore, type Store } from './platform/store/index.ts';
import { logBaseUrlOverrides } from './core/run/base-url-override.ts';
import { logAuthUrlOverrides } from './core/oauth/auth-url-overrides.ts';
import { runActionForLookups } from './core/run/run-for-lookup.ts';
import type { RunSettings } from './core/run/run-services.ts';
import { tenantRunServices } from './core/run/tenant-run-services.ts';
import { MappingWorkers } from './core/mapping/index.ts';
import { createAppCallLimiter } from './core/concurrency/index.ts';
import { createConfiguredHttpClient, type HttpClient } from './platform/outbound/index.ts';
import { ensureSigningKey } from './tenancy/end-user-tokens/signing-keys.ts';
import type { GatewayMetrics } from './platform/metrics/gateway-metrics.ts';
import { observeDefinitionLoads } from './core/definitions/definition-loads.ts';
import { serveMetrics, type MetricsListener } from './http/observability/metrics-listener.ts';
import { timedStore } from './platform/metrics/timed-store.ts';
import { startTracing } from './platform/tracing/index.ts';
import { startWebhookWorker } from './tenancy/webhooks/worker.ts';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface RunningGateway {
  server: http.Server;
  port: number;
  /** The port of the metrics listener (METRICS_PORT); undefined when it has none. */
  metricsPort: number | undefined;
  services: Services;
  bootstrap: BootstrapOutcome;
  /**
   * Stops: /ready answers 503 at once; requests are still served for `drainMs` (0 by default); then the
   * listener closes, in-flight requests finish within SHUTDOWN_GRACE_MS, and the store closes. Called
   * again while it drains with no drainMs, it ends the drain (a second Ctrl-C).
   */
  stop(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  /** How long to keep serving with /ready at 503 before the listener closes (so a load balancer stops sending). */
  drainMs?: number;
}

/** Opens the store, bootstraps an empty one, and serves the HTTP app: everything `npm start` does but signals. */
/** What tests may put in place of the real thing; production passes nothing. */
export interface GatewayOverrides {
  http?: HttpClient;
  /** Wraps the opened store (a store whose ping fails or hangs, for the readiness specs). */
  store?: (store: Store) => Store;
  /** Replaces the exporters OTEL_* configured (an in-memory one); tracing is still on only when configured. */
  traceExporter?: SpanExporter;
}

export async function startGateway(config: Config, logger: Logger, overrides: GatewayOverrides = {}): Promise<RunningGateway> {
  const tracing = await startTracing(config.tracing, logger, overrides.traceExporter ? { exporter: overrides.traceExporter } : {});
  const embedded = !config.mongodbUri && !config.databaseUrl;
  const keyring = createKeyring(await resolveEncryptionKeys(config));
  const releaseLock = embedded ? await acquireDataDirLock(config.dataDir) : async () => {};
  const metrics = await metricsIfServed(config);
  const opened = await openStore(config, storeLogging(logger)).then(tracing.store, async (error: unknown) => {
    await releaseLock();
    throw error;
  });
  const timed = metrics ? timedStore(opened, metrics) : opened;
  const store = overrides.store ? overrides.store(timed) : timed;
  const outcome = await bootstrap(store, config.bootstrapApiKey);
  logBootstrap(outcome, logger);
  await ensureSigningKey(store, keyring);
  // Definitions that fail to load do not stop the start: the gateway serves not-ready (503 on /ready and on runs)
  // and logs the located problems, and the fix is taken by hot reload without a restart.
  const loader = new DefinitionsLoader(config.mapping, config.definitionsLoadThreads, analysisCache(config, logger));
  const definitions = new DefinitionsRegistry(config.definitionsDir, logger, loader);
  if (metrics) observeDefinitionLoads(metrics, definitions);
  // Watching first: a change made while the first load runs is seen and reloaded after it. The other way
  // round, a change between the load's read and the watcher's ready would be missed until that file changed again.
  const stopWatching = await watchDefinitions(definitions, logger);
  await definitions.reload('start');
  logBaseUrlOverrides(config.appBaseUrls, loadedSnapshot(definitions), logger);
  logAuthUrlOverrides(config.appAuthUrls, loadedSnapshot(definitions), logger);
  let shuttingDown: string | null = null;
  const shutdownCheck: ReadinessCheck = { name: 'lifecycle', check: async () => shuttingDown };
  const readiness: ReadinessCheck[] = [shutdownCheck, definitions.readinessCheck(), secretsReadableCheck(store, keyring)];
  const outbound = overrides.http ?? createConfiguredHttpClient(config);
  const services = { config, store, logger, readiness, keyring, definitions, http: outbound, metrics } as Omit<Services, 'run'> as Services;
  // The run's services read the tenant records through this same object, so the webhook worker set below is the one woken.
  const mappingWorkers = new MappingWorkers(config.mappingWorkers);
  services.run = tenantRunServices(services, { http: outbound, settings: runSettings(config), calls: createAppCallLimiter(config.appCalls), mappingWorkers });
  services.runAction = runActionForLookups(services, services.run);
  // Pending webhook deliveries (some left by an earlier run, even one killed) are sent from the start.
  // Deliveries have a client of their own: the same egress policy and limits, but redirects are not followed (a 3xx is a
  // failed attempt, retried like any non-2xx: a 301/302 would turn the POST into a GET without the event).
  const webhookHttp = overrides.http ?? createConfiguredHttpClient({ ...config, outbound: { ...config.outbound, maxRedirects: 0 } });
  const webhookWorker = startWebhookWorker(services, config.webhooks, webhookHttp);
  services.webhookWorker = webhookWorker;
  // /mcp: the MCP surface's handlers, mounted on the HTTP app beside the REST routes (request id, log line, metrics, body limit as theirs).
  const mcp = createMcpEndpoint({ store, keyring, logger, definitions, run: services.run, config });
  const stopToolsNotices = definitions.onSnapshot(() => mcp.toolsChanged());
  const app = createApp(services, mcp.routes);
  // The universal run's plain requests are served off Koa (run-lane.ts); every other request goes to the app.
  const server = createHttpServer(runLane(services, app.callback()), config.server, logger);
  const connections = connectionCutter(server);
  // While it shuts down, each answer asks the client to close its connection: a keep-alive client (a load
  // balancer's pool) opens its next one elsewhere, instead of sending on one the gateway is about to close.
  server.prependListener('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    if (shuttingDown !== null) response.setHeader('Connection', 'close');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const closeAdmin = embedded ? await serveAdminSocket(config.dataDir, { store, keyring }, logger).catch((error: unknown) => {
    logger.warn({ err: error }, 'admin socket unavailable: stop the gateway to use the admin tool');
    return async () => {};
  }) : async () => {};

  let metricsListener: MetricsListener | null = null;
  let stopping: Promise<void> | null = null;
  let endDrain: (() => void) | null = null;
  const stop = (options: StopOptions = {}) => {
    const drainMs = options.drainMs ?? 0;
    if (stopping) {
      if (drainMs === 0) endDrain?.();
      return stopping;
    }
    shuttingDown = drainMs > 0 ? `shutting down; requests are still served for ${drainMs} ms, then the listener closes` : 'shutting down';
    stopping = (async () => {
      if (drainMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs);
          endDrain = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        logger.info('drain over: closing the listener, finishing in-flight requests');
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connections left idle by a finished request close at once, not at the keep-alive timeout.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const grace = setTimeout(() => {
        // The gateway, not the callers, ends these requests: said once here, and their own lines say so too (errors.ts).
        const cut = connections.cutAll();
        if (cut > 0) {
          logger.warn(
            { requests: cut, shutdownGraceMs: config.shutdownGraceMs },
            `shutting down: SHUTDOWN_GRACE_MS (${config.shutdownGraceMs} ms) passed with ${cut} request${cut === 1 ? '' : 's'} in flight; the gateway closed ${cut === 1 ? 'its connection' : 'their connections'}, unanswered`,
          );
        }
      }, config.shutdownGraceMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(grace);
      // Every step is taken even when one before it fails (a watcher whose folder was deleted under it):
      // the store is closed and the lock released whatever happened; the first failure is reported after.
      const steps: [string, () => Promise<void>][] = [
        ['metrics listener', async () => await metricsListener?.close()],
        ['mcp endpoint', async () => {
          stopToolsNotices();
          await mcp.close();
        }],
        ['definitions watcher', stopWatching],
        ['definitions cache writes', () => loader.cacheWritten()],
        ['webhook worker', () => webhookWorker.stop()],
        ['webhook outbound client', async () => (webhookHttp === outbound ? undefined : await webhookHttp.close())],
        ['outbound client', () => outbound.close()],
        ['mapping workers', () => mappingWorkers.close()],
        ['admin socket', closeAdmin],
        ['store', () => store.close()],
        ['data directory lock', releaseLock],
        ['tracing', () => tracing.shutdown()],
      ];
      let failed: unknown = null;
      for (const [name, step] of steps) {
        try {
          await step();
        } catch (error) {
          logger.error({ err: error }, `stopping: closing the ${name} failed`);
          failed ??= error;
        }
      }
      if (failed !== null) throw failed;
    })();
    return stopping;
  };
  // A metrics port that cannot be opened stops the start, with what was started closed again.
  if (metrics) metricsListener = await serveMetrics(config, metrics, logger).catch(async (error: unknown) => {
    await stop();
    throw error;
  });

  return { server, port: (server.address() as AddressInfo).port, metricsPort: metricsListener?.port, services, bootstrap: outcome, stop };
}

/**
 * The metrics, when something can scrape them (METRICS_PORT or METRICS_TOKEN); none otherwise: nothing is
 * collected that nobody reads, and prom-client is not even loaded (its import is a measurable part of a start).
 */
async function metricsIfServed(config: Config): Promise<GatewayMetrics | undefined> {
  if (config.metrics.port === undefined && config.metrics.token === undefined) return undefined;
  const { createGatewayMetrics } = await import('./platform/metrics/gateway-metrics.ts');
  return createGatewayMetrics();
}

/** The on-disk cache of analysed definition files (DEFINITIONS_CACHE_DIR), or null when it is off. */
function analysisCache(config: Config, logger: Logger): AnalysisCache | null {
  if (!config.definitionsCacheDir) return null;
  return new AnalysisCache(config.definitionsCacheDir, undefined, (error, doing) => {
    logger.warn({ err: error, dir: config.definitionsCacheDir }, `definitions cache: ${doing} failed; definitions still load, analysing the files it does not hold`);
  });
}

/** The definitions the start loaded, or null when they failed to load (the gateway serves not-ready). */
function loadedSnapshot(definitions: DefinitionsRegistry) {
  try {
    return definitions.current();
  } catch {
    return null;
  }
}

function logBootstrap(outcome: BootstrapOutcome, logger: Logger): void {
  if (outcome.kind === 'skipped' && outcome.ignoredKey) {
    logger.warn(
      'BOOTSTRAP_API_KEY is set but ignored: the store already has a company, and the key is not one of its keys, so it answers 401. ' +
        'It only applies to an empty store; create a key with `npm run admin -- keys:create`.',
    );
  } else if (outcome.kind === 'created' && outcome.resumed) {
    logger.warn({ companyId: outcome.companyId }, 'finished the bootstrap of company "Default" that an earlier start left unfinished');
  }
}

/** What a run reads of the configuration: APP_BASE_URLS, APP_AUTH_URLS, REQUEST_TIMEOUT_MS as the cap of its waits, TOKEN_RETRY_*. */
export function runSettings(config: Pick<Config, 'appBaseUrls' | 'appAuthUrls' | 'server' | 'tokenRetry'>): RunSettings {
  return { appBaseUrls: config.appBaseUrls, appAuthUrls: config.appAuthUrls, maxWaitMs: config.server.requestTimeoutMs, tokenRetry: config.tokenRetry };
}
