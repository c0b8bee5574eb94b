import path from 'node:path';
import { definitionsSettingsFromEnv, type DefinitionsSettings } from '../core/definitions/settings.ts';
import { mappingLimitsFromEnv, type MappingLimits } from '../core/mapping/limits.ts';
import { mappingWorkersFromEnv, type MappingWorkerSettings } from '../core/mapping/workers/mapping-workers.ts';
import { appBaseUrlsFromEnv } from '../core/run/app-base-urls.ts';
import { proxySettingsFromEnv, type ProxySettings } from '../core/proxy/settings.ts';
import { appAuthUrlsFromEnv, type AppAuthUrls } from '../core/oauth/auth-url-overrides.ts';
import { tokenRetryFromEnv, type TokenRetrySettings } from '../core/auth/token-retry.ts';
import { metricsSettingsFromEnv, type MetricsSettings } from '../http/observability/metrics-settings.ts';
import { httpServerSettingsFromEnv, type HttpServerSettings } from '../http/server/settings.ts';
import { mcpSettingsFromEnv, type McpSettings } from '../mcp/settings.ts';
import { encryptionKeysFromEnv } from '../platform/crypto/encryption-keys.ts';
import { egressAllowFromEnv, type EgressAllowList } from '../platform/egress/allow-list.ts';
import { logLevelFromEnv, type LogLevel } from '../platform/log/log-level.ts';
import { logQueueMaxBytesFromEnv } from '../platform/log/log-queue.ts';
import { outboundSettingsFromEnv, type OutboundSettings } from '../platform/outbound/settings.ts';
import { appCallSettingsFromEnv, type AppCallSettings } from '../core/concurrency/settings.ts';
import { baseUrl, ConfigError, integer, listenHost, optional, type Env } from '../platform/settings/env.ts';
import { storeSettingsFromEnv, type StoreSettings } from '../platform/store/store-settings.ts';
import { tracingFromEnv, type TracingConfig } from '../platform/tracing/tracing-config.ts';
import { bootstrapApiKeyFromEnv } from '../tenancy/companies/bootstrap.ts';
import { endUserTokenSettingsFromEnv, type EndUserTokenSettings } from '../tenancy/end-user-tokens/settings.ts';
import { webhookSettingsFromEnv, type WebhookSettings } from '../tenancy/webhooks/settings.ts';

export { ConfigError };
export type { LogLevel };

/**
 * The gateway's configuration, read once from the environment at start.
 * Each module owns its settings (their variables' names, defaults and
 * checks, in a `…FromEnv` reader beside the code that uses them); this file
 * only gathers them, with the few that belong to the whole gateway (PORT,
 * HOST, DATA_DIR, the public URLs, shutdown). Every variable is documented
 * in README.md with its default; a missing or malformed value is a
 * ConfigError naming the variable and the problem, and the process exits
 * with that one line.
 */
export interface Config extends StoreSettings, DefinitionsSettings {
  port: number;
  host: string;
  bootstrapApiKey: string | undefined;
  /** Base64 keys as given; the first one encrypts, every one decrypts. */
  encryptionKeys: string[] | undefined;
  logLevel: LogLevel;
  /** LOG_QUEUE_MAX_BYTES: the most bytes of log lines held while stdout does not take them; beyond, lines are dropped and counted. */
  logQueueMaxBytes: number;
  /** How long in-flight requests get to finish on SIGTERM/SIGINT, once the listener is closed. */
  shutdownGraceMs: number;
  /** SHUTDOWN_DRAIN_MS: on SIGTERM, how long /ready answers 503 while requests are still served, before the listener closes. */
  shutdownDrainMs: number;
  /** Timeouts and header size limit of the gateway's own HTTP server (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_HEADER_BYTES). */
  server: HttpServerSettings;
  /** Timeouts, size and redirect limits, pool size of calls to third-party apps (OUTBOUND_*). */
  outbound: OutboundSettings;
  /** How calls beyond an app's api.yaml concurrency wait (OUTBOUND_QUEUE_LENGTH). */
  appCalls: AppCallSettings;
  /** EGRESS_ALLOW: destinations admitted although their address class is refused. */
  egressAllow: EgressAllowList;
  /** APP_BASE_URLS: base URLs replacing api.yaml's, by app slug (a local stand-in for testing); still held to the egress policy. */
  appBaseUrls: Readonly<Record<string, string>>;
  /** APP_AUTH_URLS: OAuth authorize, token, refresh and post-authorization URLs replacing the auths' own, by app slug (a local stand-in); still held to the egress policy. */
  appAuthUrls: AppAuthUrls;
  /** Retries of a token endpoint that fails transiently (TOKEN_RETRY_*). */
  tokenRetry: TokenRetrySettings;
  /** Guardrails of every JSONata mapping evaluation (MAPPING_*). */
  mapping: MappingLimits;
  /** The threads that map large responses (MAPPING_WORKERS, MAPPING_WORKER_FROM_BYTES). */
  mappingWorkers: MappingWorkerSettings;
  /** Where clients reach the gateway (no trailing slash): the OpenAPI `servers` entry and the default token issuer. */
  publicBaseUrl: string;
  /** The embedded host serving the same /v1 paths (no trailing slash); the second OpenAPI `servers` entry. */
  embeddedBaseUrl: string;
  endUserTokens: EndUserTokenSettings;
  /** How GET /metrics is served (METRICS_*); neither a port nor a token: not served. */
  metrics: MetricsSettings;
  /** OpenTelemetry tracing as the standard OTEL_* variables configure it; null when off. */
  tracing: TracingConfig | null;
  /** How webhook deliveries are sent and retried (WEBHOOK_*). */
  webhooks: WebhookSettings;
  /** How /mcp answers (MCP_*). */
  mcp: McpSettings;
  /** The limits of calls through the proxy (PROXY_*). */
  proxy: ProxySettings;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const store = storeSettingsFromEnv(env);
  const bootstrapApiKey = bootstrapApiKeyFromEnv(env);
  const encryptionKeys = encryptionKeysFromEnv(env);
  if ((store.mongodbUri !== undefined || store.databaseUrl !== undefined) && encryptionKeys === undefined) {
    const by = store.databaseUrl !== undefined ? 'DATABASE_URL' : 'MONGODB_URI';
    throw new ConfigError('ENCRYPTION_KEY', `is required when ${by} is set: every gateway sharing the store needs the same key (32 bytes, base64; e.g. \`openssl rand -base64 32\`)`);
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = listenHost(env, 'HOST') ?? '0.0.0.0';
  const publicBaseUrl = baseUrl(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`;
  const embeddedBaseUrl = baseUrl(env, 'EMBEDDED_BASE_URL') ?? publicBaseUrl;
  const dataDir = path.resolve(cwd, optional(env, 'DATA_DIR') ?? './data');
  return {
    port,
    host,
    dataDir,
    ...definitionsSettingsFromEnv(env, cwd, dataDir),
    ...store,
    bootstrapApiKey,
    encryptionKeys,
    logLevel: logLevelFromEnv(env),
    logQueueMaxBytes: logQueueMaxBytesFromEnv(env),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 5_000, 0, 600_000),
    server: httpServerSettingsFromEnv(env),
    outbound: outboundSettingsFromEnv(env),
    appCalls: appCallSettingsFromEnv(env),
    egressAllow: egressAllowFromEnv(env),
    appBaseUrls: appBaseUrlsFromEnv(env),
    appAuthUrls: appAuthUrlsFromEnv(env),
    tokenRetry: tokenRetryFromEnv(env),
    mapping: mappingLimitsFromEnv(env),
    mappingWorkers: mappingWorkersFromEnv(env),
    publicBaseUrl,
    embeddedBaseUrl,
    endUserTokens: endUserTokenSettingsFromEnv(env, { publicBaseUrl, embeddedBaseUrl }),
    metrics: metricsSettingsFromEnv(env, port, host),
    tracing: tracingFromEnv(env),
    webhooks: webhookSettingsFromEnv(env),
    mcp: mcpSettingsFromEnv(env),
    proxy: proxySettingsFromEnv(env),
  };
}
