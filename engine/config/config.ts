import path from 'node:path';
import { defaultLoadThreads } from '../core/definitions/load-threads.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../core/mapping/limits.ts';
import { parseEgressAllow, type EgressAllowList } from '../platform/egress/allow-list.ts';
import { parseAppBaseUrls } from '../core/run/app-base-urls.ts';
import { DEFAULT_OUTBOUND_SETTINGS, type OutboundSettings } from '../platform/outbound/settings.ts';
import { DEFAULT_HTTP_SERVER_SETTINGS, type HttpServerSettings } from '../http/server/settings.ts';
import { DEFAULT_STORE_QUERY_TIMEOUT_MS } from '../platform/store/mongodb/query-timeout.ts';
import { DEFAULT_COMPACTION_INTERVAL_MS } from '../platform/store/embedded/compaction.ts';
import { DEFAULT_TOKEN_RETRY, type TokenRetrySettings } from '../core/auth/token-retry.ts';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../tenancy/webhooks/settings.ts';
import { tracingFromEnv, type TracingConfig } from '../platform/tracing/tracing-config.ts';

/**
 * The gateway's configuration, read once from the environment at start.
 * Every variable is documented in README.md with its default; a missing or
 * malformed value is a ConfigError naming the variable and the problem, and
 * the process exits with that one line.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  definitionsDir: string;
  mongodbUri: string | undefined;
  /** STORE_QUERY_TIMEOUT_MS: the `maxTimeMS` of every MongoDB query; past it the request is 503 QUERY_TIMEOUT. */
  storeQueryTimeoutMs: number;
  /** STORE_COMPACTION_INTERVAL_MS: how often the embedded store rewrites the files that grew, one line per record; 0 only on start and stop. */
  storeCompactionIntervalMs: number;
  bootstrapApiKey: string | undefined;
  /** Base64 keys as given; the first one encrypts, every one decrypts. */
  encryptionKeys: string[] | undefined;
  logLevel: LogLevel;
  /** How long in-flight requests get to finish on SIGTERM/SIGINT, once the listener is closed. */
  shutdownGraceMs: number;
  /** SHUTDOWN_DRAIN_MS: on SIGTERM, how long /ready answers 503 while requests are still served, before the listener closes. */
  shutdownDrainMs: number;
  /** Timeouts and header size limit of the gateway's own HTTP server (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_HEADER_BYTES). */
  server: HttpServerSettings;
  /** Timeouts, size and redirect limits, pool size of calls to third-party apps (OUTBOUND_*). */
  outbound: OutboundSettings;
  /** EGRESS_ALLOW: destinations admitted although their address class is refused. */
  egressAllow: EgressAllowList;
  /** APP_BASE_URLS: base URLs replacing api.yaml's, by app slug (a local stand-in for testing); still held to the egress policy. */
  appBaseUrls: Readonly<Record<string, string>>;
  /** Retries of a token endpoint that fails transiently (TOKEN_RETRY_*). */
  tokenRetry: TokenRetrySettings;
  /** Guardrails of every JSONata mapping evaluation (MAPPING_*). */
  mapping: MappingLimits;
  /** DEFINITIONS_LOAD_THREADS: threads a large full load of definitions analyses files on (1: the loading thread alone; more: worker threads). */
  definitionsLoadThreads: number;
  /** DEFINITIONS_CACHE_DIR: where analysed definition files are kept across restarts (analysis-cache.ts); null: off. */
  definitionsCacheDir: string | null;
  /** Where clients reach the gateway (no trailing slash): the OpenAPI `servers` entry and the default token issuer. */
  publicBaseUrl: string;
  /** The embedded host serving the same /v1 paths (no trailing slash); the second OpenAPI `servers` entry. */
  embeddedBaseUrl: string;
  endUserTokens: EndUserTokenConfig;
  /** How GET /metrics is served (METRICS_*); neither a port nor a token: not served. */
  metrics: MetricsConfig;
  /** OpenTelemetry tracing as the standard OTEL_* variables configure it; null when off. */
  tracing: TracingConfig | null;
  /** How webhook deliveries are sent and retried (WEBHOOK_*). */
  webhooks: WebhookSettings;
}

/** GET /metrics: unauthenticated on a listener of its own (METRICS_PORT, METRICS_HOST), and/or on the main port behind a Bearer token (METRICS_TOKEN). */
export interface MetricsConfig {
  port: number | undefined;
  host: string;
  token: string | undefined;
}

/** How end-user tokens (GET /v1/users/{userId}/token) are issued and checked. */
export interface EndUserTokenConfig {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** An API key a person may choose for BOOTSTRAP_API_KEY: long enough, and safe in a header. */
export const CHOSEN_API_KEY = /^[A-Za-z0-9._~-]{20,200}$/;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const mongodbUri = optional(env, 'MONGODB_URI');
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\/\S+$/.test(mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// connection string');
  }
  const bootstrapApiKey = optional(env, 'BOOTSTRAP_API_KEY');
  if (bootstrapApiKey !== undefined && !CHOSEN_API_KEY.test(bootstrapApiKey)) {
    throw new ConfigError('BOOTSTRAP_API_KEY', 'must be 20 to 200 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"');
  }
  const encryptionKeys = parseEncryptionKeys(optional(env, 'ENCRYPTION_KEY'));
  if (mongodbUri !== undefined && encryptionKeys === undefined) {
    throw new ConfigError('ENCRYPTION_KEY', 'is required when MONGODB_URI is set (32 bytes, base64; e.g. `openssl rand -base64 32`)');
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const publicBaseUrl = baseUrl(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`;
  const embeddedBaseUrl = baseUrl(env, 'EMBEDDED_BASE_URL') ?? publicBaseUrl;
  return {
    port,
    host: optional(env, 'HOST') ?? '0.0.0.0',
    dataDir: path.resolve(cwd, optional(env, 'DATA_DIR') ?? './data'),
    definitionsDir: path.resolve(cwd, optional(env, 'DEFINITIONS_DIR') ?? './definitions'),
    mongodbUri,
    storeQueryTimeoutMs: integer(env, 'STORE_QUERY_TIMEOUT_MS', DEFAULT_STORE_QUERY_TIMEOUT_MS, 1, 600_000),
    storeCompactionIntervalMs: integer(env, 'STORE_COMPACTION_INTERVAL_MS', DEFAULT_COMPACTION_INTERVAL_MS, 0, 86_400_000),
    bootstrapApiKey,
    encryptionKeys,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 5_000, 0, 600_000),
    server: httpServer(env),
    outbound: {
      connectTimeoutMs: integer(env, 'OUTBOUND_CONNECT_TIMEOUT_MS', DEFAULT_OUTBOUND_SETTINGS.connectTimeoutMs, 1, 600_000),
      headersTimeoutMs: integer(env, 'OUTBOUND_HEADERS_TIMEOUT_MS', DEFAULT_OUTBOUND_SETTINGS.headersTimeoutMs, 1, 600_000),
      bodyTimeoutMs: integer(env, 'OUTBOUND_BODY_TIMEOUT_MS', DEFAULT_OUTBOUND_SETTINGS.bodyTimeoutMs, 1, 600_000),
      totalTimeoutMs: integer(env, 'OUTBOUND_TOTAL_TIMEOUT_MS', DEFAULT_OUTBOUND_SETTINGS.totalTimeoutMs, 1, 3_600_000),
      maxResponseBytes: integer(env, 'OUTBOUND_MAX_RESPONSE_BYTES', DEFAULT_OUTBOUND_SETTINGS.maxResponseBytes, 1, 1_073_741_824),
      maxRedirects: integer(env, 'OUTBOUND_MAX_REDIRECTS', DEFAULT_OUTBOUND_SETTINGS.maxRedirects, 0, 20),
      connectionsPerOrigin: integer(env, 'OUTBOUND_CONNECTIONS_PER_ORIGIN', DEFAULT_OUTBOUND_SETTINGS.connectionsPerOrigin, 1, 1024),
    },
    egressAllow: egressAllow(env),
    appBaseUrls: appBaseUrls(env),
    tokenRetry: {
      attempts: integer(env, 'TOKEN_RETRY_ATTEMPTS', DEFAULT_TOKEN_RETRY.attempts, 1, 10),
      delayMs: integer(env, 'TOKEN_RETRY_DELAY_MS', DEFAULT_TOKEN_RETRY.delayMs, 0, 60_000),
      budgetMs: integer(env, 'TOKEN_RETRY_BUDGET_MS', DEFAULT_TOKEN_RETRY.budgetMs, 1, 600_000),
    },
    mapping: {
      timeoutMs: integer(env, 'MAPPING_TIMEOUT_MS', DEFAULT_MAPPING_LIMITS.timeoutMs, 1, 60_000),
      maxDepth: integer(env, 'MAPPING_MAX_DEPTH', DEFAULT_MAPPING_LIMITS.maxDepth, 10, 100_000),
      maxSequence: integer(env, 'MAPPING_MAX_SEQUENCE', DEFAULT_MAPPING_LIMITS.maxSequence, 1, 10_000_000),
      // up to 2^28: V8's longest string is about 2^29 characters, and a step may add two strings of the limit
      maxString: integer(env, 'MAPPING_MAX_STRING', DEFAULT_MAPPING_LIMITS.maxString, 1, 268_435_456),
      maxResultBytes: integer(env, 'MAPPING_MAX_RESULT_BYTES', DEFAULT_MAPPING_LIMITS.maxResultBytes, 1, 1_073_741_824),
    },
    definitionsLoadThreads: integer(env, 'DEFINITIONS_LOAD_THREADS', defaultLoadThreads(), 1, 64),
    definitionsCacheDir: definitionsCacheDir(env, cwd),
    publicBaseUrl,
    embeddedBaseUrl,
    endUserTokens: {
      // The issuer is the gateway's address, so `${iss}/.well-known/jwks.json` finds the keys that verify it.
      issuer: tokenClaim(env, 'END_USER_TOKEN_ISSUER') ?? publicBaseUrl,
      audience: tokenClaim(env, 'END_USER_TOKEN_AUDIENCE') ?? `${embeddedBaseUrl}/v1`,
      ttlSeconds: integer(env, 'END_USER_TOKEN_TTL_SECONDS', 600, 30, 86_400),
    },
    metrics: metricsConfig(env, port, optional(env, 'HOST') ?? '0.0.0.0'),
    tracing: tracingFromEnv(env),
    webhooks: webhookSettings(env),
  };
}

/** WEBHOOK_*: the retry window, backoff, time limit, concurrency and history of webhook deliveries. */
function webhookSettings(env: Env): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  return {
    retryWindowMs: integer(env, 'WEBHOOK_RETRY_WINDOW_MS', d.retryWindowMs, 100, 7 * 86_400_000),
    retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', d.retryBaseMs, 10, 86_400_000),
    retryMaxDelayMs: integer(env, 'WEBHOOK_RETRY_MAX_DELAY_MS', d.retryMaxDelayMs, 10, 86_400_000),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', d.timeoutMs, 100, 120_000),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', d.concurrency, 1, 256),
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', d.pollIntervalMs, 10, 600_000),
    deliveriesKept: integer(env, 'WEBHOOK_DELIVERIES_KEPT', d.deliveriesKept, 1, 1_000),
  };
}

/** METRICS_PORT (its own listener, on METRICS_HOST, default HOST) and METRICS_TOKEN (a Bearer token on the main port). */
function metricsConfig(env: Env, port: number, host: string): MetricsConfig {
  const metricsPort = optional(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): the metrics listener is a port of its own`);
  }
  const token = optional(env, 'METRICS_TOKEN');
  if (token !== undefined && !/^[A-Za-z0-9._~+/=-]{32,512}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 32 to 512 characters of A-Z, a-z, 0-9, ".", "_", "~", "+", "/", "=" or "-" (e.g. `openssl rand -hex 32`)');
  }
  return { port: metricsPort, host: optional(env, 'METRICS_HOST') ?? host, token };
}

/** The HTTP server's limits; Node refuses a headers timeout longer than the request timeout, so that is a config error. */
function httpServer(env: Env): HttpServerSettings {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', DEFAULT_HTTP_SERVER_SETTINGS.requestTimeoutMs, 100, 3_600_000);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', Math.min(DEFAULT_HTTP_SERVER_SETTINGS.headersTimeoutMs, requestTimeoutMs), 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs}) (got "${headersTimeoutMs}")`);
  }
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_SERVER_SETTINGS.keepAliveTimeoutMs, 100, 600_000),
    maxHeaderBytes: integer(env, 'MAX_HEADER_BYTES', DEFAULT_HTTP_SERVER_SETTINGS.maxHeaderBytes, 1024, 1_048_576),
  };
}

/** `EGRESS_ALLOW`: comma-separated CIDRs, addresses, host names or *.suffixes; unset admits none. */
function egressAllow(env: Env): EgressAllowList {
  const raw = optional(env, 'EGRESS_ALLOW');
  try {
    return parseEgressAllow(raw);
  } catch (error) {
    throw new ConfigError('EGRESS_ALLOW', (error as Error).message);
  }
}

/** `APP_BASE_URLS`: a JSON object of app slug to base URL; unset overrides none. */
function appBaseUrls(env: Env): Readonly<Record<string, string>> {
  try {
    return parseAppBaseUrls(optional(env, 'APP_BASE_URLS'));
  } catch (error) {
    throw new ConfigError('APP_BASE_URLS', (error as Error).message);
  }
}

/** `ENCRYPTION_KEY`: one or more comma-separated base64 keys of 32 bytes, newest first. */
export function parseEncryptionKeys(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const keys = value.split(',').map((k) => k.trim());
  keys.forEach((key, i) => {
    const where = keys.length > 1 ? `key ${i + 1} of ${keys.length} ` : '';
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length !== 32) {
      throw new ConfigError('ENCRYPTION_KEY', `${where}must be 32 bytes encoded as base64 (44 characters; e.g. \`openssl rand -base64 32\`)`);
    }
  });
  return keys;
}

/** An absolute http(s) URL without query or fragment; a trailing slash is dropped so paths can be appended. */
function baseUrl(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(name, `must be an http:// or https:// URL without query, fragment or credentials (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

/** A JWT `iss` or `aud` value: printable, no spaces, at most 256 characters. */
function tokenClaim(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw !== undefined && !/^[\x21-\x7e]{1,256}$/.test(raw)) {
    throw new ConfigError(name, `must be 1 to 256 printable characters without spaces (got "${raw}")`);
  }
  return raw;
}

/** DEFINITIONS_CACHE_DIR: `off`, or a folder (relative to the working folder); by default DATA_DIR/cache/definitions. */
function definitionsCacheDir(env: Env, cwd: string): string | null {
  const value = optional(env, 'DEFINITIONS_CACHE_DIR');
  if (value === 'off') return null;
  if (value !== undefined) return path.resolve(cwd, value);
  return path.join(path.resolve(cwd, optional(env, 'DATA_DIR') ?? './data'), 'cache', 'definitions');
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new ConfigError(name, 'is set but empty; unset it to use the default');
  return value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}
