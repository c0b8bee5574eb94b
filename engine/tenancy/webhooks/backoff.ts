import type { WebhookSettings } from './settings.ts';

/**
 * The delay after the `attempts`-th failed attempt: WEBHOOK_RETRY_BASE_MS
 * doubled per attempt, at most WEBHOOK_RETRY_MAX_DELAY_MS, with "equal
 * jitter" (between half and all of it), so endpoints that failed together
 * are not all retried at the same moment. `random` is Math.random but in tests.
 */
export function retryDelayMs(attempts: number, settings: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxDelayMs'>, random: () => number = Math.random): number {
  const exponential = Math.min(settings.retryBaseMs * 2 ** Math.min(attempts - 1, 30), settings.retryMaxDelayMs);
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
