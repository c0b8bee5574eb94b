import type { Keyring } from '../../platform/crypto/keyring.ts';
import type { Logger } from '../../platform/log/logger.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';
import type { HttpClient } from '../../platform/outbound/index.ts';
import type { AppConfigurations } from '../auth/app-configurations.ts';
import type { AppCallLimiter } from '../concurrency/index.ts';
import type { MappingWorkers } from '../mapping/index.ts';
import { DEFAULT_TOKEN_RETRY, type TokenRetrySettings } from '../auth/token-retry.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { AppAuthUrls } from '../oauth/auth-url-overrides.ts';

/**
 * What one run needs from outside the core, each as a narrow interface: the
 * composition root builds it from the platform and the tenant records (see
 * engine/gateway.ts), the offline case runner from its recorded network.
 */
export interface RunServices {
  /** Every call of a run: the app, a token endpoint, a credential exchange (egress policy, timeouts, size limit). */
  http: HttpClient;
  /** Slots for calls to an app under its api.yaml concurrency, shared by every run (and the proxy) of the process; unset: no bound (the offline case runner). */
  calls?: AppCallLimiter | undefined;
  /** Opens a connection's sealed credentials, seals renewed ones, keys the pagination cursors. */
  keyring: Keyring;
  /** Where renewed tokens are written (a compare-and-set shared by every gateway on the store). */
  tokens: TokenStore;
  /** The company's own settings for an app: its OAuth client, its credential-exchange endpoint. */
  appConfigurations: AppConfigurations;
  clock: Clock;
  logger: Logger;
  /** Unset where nothing is scraped. */
  metrics?: GatewayMetrics | undefined;
  settings: RunSettings;
  /** The threads that parse and map large responses; unset: every mapping runs on the calling thread. */
  mappingWorkers?: MappingWorkers | undefined;
}

export interface RunSettings {
  /** APP_BASE_URLS: base URLs replacing api.yaml's, by app slug (a local stand-in). */
  appBaseUrls: Readonly<Record<string, string>>;
  /** APP_AUTH_URLS: OAuth URLs replacing the auths' own, by app slug (a local stand-in). */
  appAuthUrls: AppAuthUrls;
  /** The longest one run may spend waiting out rate limits, whatever an API's budget says: the gateway's REQUEST_TIMEOUT_MS. */
  maxWaitMs: number;
  /** How a renewal retries a token endpoint that fails transiently (TOKEN_RETRY_*). */
  tokenRetry: TokenRetrySettings;
}

/** Milliseconds since the epoch: token expiry and the credential-exchange cache read it. */
export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

/**
 * A run's settings where nothing is configured (the offline case runner): no
 * base or auth URL replaced, waits capped at REQUEST_TIMEOUT_MS's default, the
 * TOKEN_RETRY_* defaults.
 */
export const DEFAULT_RUN_SETTINGS: RunSettings = { appBaseUrls: {}, appAuthUrls: {}, maxWaitMs: 30_000, tokenRetry: DEFAULT_TOKEN_RETRY };
