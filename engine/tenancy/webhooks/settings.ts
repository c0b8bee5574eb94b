import { ConfigError, integer, type Env } from '../../platform/settings/env.ts';

/** How webhook deliveries are sent and retried (WEBHOOK_* variables; README's Configuration table). */
export interface WebhookSettings {
  /** WEBHOOK_RETRY_WINDOW_MS: how long after the event a delivery is still retried; past it, it is given up (status failed). */
  retryWindowMs: number;
  /** WEBHOOK_RETRY_BASE_MS: the delay before the second attempt; each next one doubles, with jitter. */
  retryBaseMs: number;
  /** WEBHOOK_RETRY_MAX_DELAY_MS: the longest delay between two attempts. */
  retryMaxDelayMs: number;
  /** WEBHOOK_TIMEOUT_MS: how long one attempt may take, connection to last byte of the answer. */
  timeoutMs: number;
  /** WEBHOOK_CONCURRENCY: attempts in flight at once in this gateway process. */
  concurrency: number;
  /** WEBHOOK_POLL_INTERVAL_MS: how often the worker looks for due deliveries (a new event wakes it at once). */
  pollIntervalMs: number;
  /** WEBHOOK_DELIVERIES_KEPT: finished deliveries kept per endpoint (the newest), for GET /v2/webhooks/{id}/deliveries. */
  deliveriesKept: number;
  /** WEBHOOK_MAX_PENDING: pending deliveries per endpoint; an event finding this many drops the oldest (failed, counted, logged). */
  maxPending: number;
  /** WEBHOOK_MAX_ATTEMPTS: attempts of one delivery, whatever time the window leaves; then it is given up. */
  maxAttempts: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryWindowMs: 24 * 60 * 60 * 1000,
  retryBaseMs: 30_000,
  retryMaxDelayMs: 60 * 60 * 1000,
  timeoutMs: 10_000,
  concurrency: 8,
  pollIntervalMs: 1_000,
  deliveriesKept: 100,
  maxPending: 1_000,
  maxAttempts: 50,
};

/** WEBHOOK_*: the retry window, backoff, time limit, concurrency, history and bounds of webhook deliveries. */
export function webhookSettingsFromEnv(env: Env): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  const settings: WebhookSettings = {
    retryWindowMs: integer(env, 'WEBHOOK_RETRY_WINDOW_MS', d.retryWindowMs, 100, 7 * 86_400_000),
    retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', d.retryBaseMs, 10, 86_400_000),
    retryMaxDelayMs: integer(env, 'WEBHOOK_RETRY_MAX_DELAY_MS', d.retryMaxDelayMs, 10, 86_400_000),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', d.timeoutMs, 100, 120_000),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', d.concurrency, 1, 256),
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', d.pollIntervalMs, 10, 600_000),
    deliveriesKept: integer(env, 'WEBHOOK_DELIVERIES_KEPT', d.deliveriesKept, 1, 1_000),
    maxPending: integer(env, 'WEBHOOK_MAX_PENDING', d.maxPending, 1, 100_000),
    maxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', d.maxAttempts, 1, 1_000),
  };
  // A base above the cap would make every delay the cap: not what either value says.
  if (settings.retryBaseMs > settings.retryMaxDelayMs) {
    const base = `WEBHOOK_RETRY_BASE_MS (${settings.retryBaseMs})`;
    const max = `WEBHOOK_RETRY_MAX_DELAY_MS (${settings.retryMaxDelayMs})`;
    throw env.WEBHOOK_RETRY_BASE_MS !== undefined
      ? new ConfigError('WEBHOOK_RETRY_BASE_MS', `must be at most ${max}: the first delay cannot be longer than the longest delay (got ${settings.retryBaseMs})`)
      : new ConfigError('WEBHOOK_RETRY_MAX_DELAY_MS', `must be at least ${base}: the longest delay cannot be shorter than the first one (got ${settings.retryMaxDelayMs})`);
  }
  return settings;
}
