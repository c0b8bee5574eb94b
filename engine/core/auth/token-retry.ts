import { integer, type Env } from '../../platform/settings/env.ts';
import { parseRetryAfter } from '../run/rate-limit.ts';

/** How a run waits out a token endpoint's bad minute (TOKEN_RETRY_*; see README.md). */
export interface TokenRetrySettings {
  /** TOKEN_RETRY_ATTEMPTS: calls to the token endpoint for one renewal, the first included. */
  attempts: number;
  /** TOKEN_RETRY_DELAY_MS: the base delay; retry n waits a random time up to delay × 2^(n-1) (full jitter). */
  delayMs: number;
  /** TOKEN_RETRY_BUDGET_MS: the longest one renewal may take, every attempt and wait included. */
  budgetMs: number;
}

export const DEFAULT_TOKEN_RETRY: TokenRetrySettings = { attempts: 3, delayMs: 250, budgetMs: 10_000 };

/**
 * The wait before retry number `retry` (1-based): the provider's
 * Retry-After when it sent one, else exponential backoff with full jitter
 * (a random time from 0 to delay × 2^(retry-1)), so that many gateways
 * retrying one provider do not arrive together.
 */
export function tokenRetryDelayMs(settings: TokenRetrySettings, retry: number, retryAfter: string | undefined, random = Math.random): number {
  const asked = parseRetryAfter(retryAfter);
  if (asked !== null) return asked;
  return Math.round(random() * settings.delayMs * 2 ** (retry - 1));
}

/** TOKEN_RETRY_*: how a renewal retries a token endpoint that fails transiently. */
export function tokenRetryFromEnv(env: Env): TokenRetrySettings {
  const d = DEFAULT_TOKEN_RETRY;
  return {
    attempts: integer(env, 'TOKEN_RETRY_ATTEMPTS', d.attempts, 1, 10),
    delayMs: integer(env, 'TOKEN_RETRY_DELAY_MS', d.delayMs, 0, 60_000),
    budgetMs: integer(env, 'TOKEN_RETRY_BUDGET_MS', d.budgetMs, 1, 600_000),
  };
}
