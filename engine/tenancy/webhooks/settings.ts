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
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryWindowMs: 24 * 60 * 60 * 1000,
  retryBaseMs: 30_000,
  retryMaxDelayMs: 60 * 60 * 1000,
  timeoutMs: 10_000,
  concurrency: 8,
  pollIntervalMs: 1_000,
  deliveriesKept: 100,
};
