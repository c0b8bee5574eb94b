import type { RetryEntry } from '../definitions/index.ts';
import { onAbort, type Abortable } from '../../platform/outbound/index.ts';

/**
 * How long to wait before retry number `retry` (1-based) of a rate-limited
 * call: the app's Retry-After (whole or decimal seconds, or an HTTP date) when it sent one,
 * else the policy's `resetHeader` (the time the limit resets) when the app
 * sent that, else the policy's delay times its multiplier per retry. null
 * means give up now: the app asked for a longer wait than `retryAfterCapMs`
 * allows. `headers` have lower-case names.
 */
export function retryDelayMs(policy: RetryEntry, retry: number, headers: Readonly<Record<string, string>>, now = Date.now()): number | null {
  const asked = parseRetryAfter(headers['retry-after'], now) ?? parseReset(policy.resetHeader, headers, now);
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

/** The wait a reset header asks for, never below 0 (a reset in the past: retry now); null when the header is absent or unreadable. */
export function parseReset(header: RetryEntry['resetHeader'], headers: Readonly<Record<string, string>>, now = Date.now()): number | null {
  const value = header ? headers[header.name]?.trim() : undefined;
  if (!header || !value) return null;
  if (header.format === 'HttpDate') return parseRetryAfter(/^\d+$/.test(value) ? undefined : value, now);
  if (!/^\d+(\.\d+)?$/.test(value)) return null;
  const number = Number(value);
  switch (header.format) {
    case 'Seconds':
      return Math.round(number * 1000);
    case 'UnixMilliseconds':
      return Math.max(0, Math.round(number - now));
    default:
      return Math.max(0, Math.round(number * 1000 - now));
  }
}

/** How waits are taken: the real clock, or (offline cases) one that does not wait. */
export type Sleep = (ms: number, signal?: Abortable) => Promise<void>;

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
