import type { RetryEntry } from '../definitions/index.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';
import type { Abortable } from '../../platform/outbound/index.ts';
import { parseReset, parseRetryAfter, retryDelayMs, sleep as realSleep, type Sleep } from './rate-limit.ts';

/**
 * The API's retry policy (api.yaml `retry`) through one run or one proxied
 * call: after a rate limit the call is sent again after Retry-After (else
 * the reset header, else the policy's backoff), for at most `maxAttempts`
 * attempts, while the waits together stay within the policy's budget, and
 * never beyond the gateway's REQUEST_TIMEOUT_MS (`maxWaitMs`).
 */
export class RateLimitRetries {
  /** Calls sent again after a rate limit so far (meta.retries). */
  retries = 0;
  #waitedMs = 0;
  readonly #budgetMs: number;

  constructor(
    private readonly policy: RetryEntry,
    maxWaitMs: number,
    private readonly count: { metrics: GatewayMetrics | undefined; app: string },
  ) {
    this.#budgetMs = Math.min(policy.budgetMs, maxWaitMs);
  }

  /**
   * The wait before the next attempt after a rate limit whose response had
   * `headers` (lower-case names), or null to give up now: `giveUp` (the
   * policy's giveUpWhen said so), no attempt left, a Retry-After above the
   * cap, or a wait the budget cannot take.
   */
  nextWait(headers: Readonly<Record<string, string>>, giveUp: boolean): number | null {
    if (giveUp || this.retries + 1 >= this.policy.maxAttempts) return null;
    const wait = retryDelayMs(this.policy, this.retries + 1, headers);
    return wait !== null && this.#waitedMs + wait <= this.#budgetMs ? wait : null;
  }

  /** The wait the app asked for in a rate-limited response's `headers` (its Retry-After, else the policy's reset header), whatever the cap and budget; null when it named none. */
  askedWaitMs(headers: Readonly<Record<string, string>>): number | null {
    return parseRetryAfter(headers['retry-after']) ?? parseReset(this.policy.resetHeader, headers);
  }

  /** Waits `ms` (as nextWait said), counting the retry. */
  async wait(ms: number, signal: Abortable | undefined, sleep: Sleep = realSleep): Promise<void> {
    await sleep(ms, signal);
    this.#waitedMs += ms;
    this.retries++;
    this.count.metrics?.rateLimitRetries.inc({ app: this.count.app });
  }
}
