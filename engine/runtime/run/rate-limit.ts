import type { ApiEntry } from '../../definitions/index.ts';
import { onAbort, type Abortable } from '../http/index.ts';

/**
 * How long to wait before retry number `retry` (1-based) of a rate-limited
 * call: the app's Retry-After (whole or decimal seconds, or an HTTP date) when it sent one,
 * else the policy's delay times its multiplier per retry. null means give up
 * now: the app asked for a longer wait than `retryAfterCapMs` allows.
 */
export function retryDelayMs(policy: ApiEntry['retry'], retry: number, retryAfter: string | undefined, now = Date.now()): number | null {
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== null) return asked > policy.retryAfterCapMs ? null : asked;
  return Math.round(policy.delayMs * policy.multiplier ** (retry - 1));
}

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  // Seconds, whole (RFC 9110) or decimal ("2.0", as Shopify sends them).
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  // A number that is not a delay ("-5", "1.") is not a date either.
  if (/^[-+.\d]+$/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function sleep(ms: number, signal?: Abortable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stopListening = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(signal.reason);
        })
      : null;
    const timer = setTimeout(() => {
      stopListening?.();
      resolve();
    }, ms);
  });
}
