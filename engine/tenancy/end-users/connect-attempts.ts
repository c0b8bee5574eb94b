import { GatewayError } from '../../platform/errors/index.ts';

/** The most end users whose attempts are remembered at once; past it the one least recently seen is forgotten. */
const MAX_TRACKED = 100_000;

/**
 * How often one end user may try credentials (create a connection, reconnect one with new credentials):
 * END_USER_CONNECT_ATTEMPTS_PER_MINUTE, a bucket per end user that holds that many attempts and refills at
 * that many a minute. Each attempt checks the credentials with the app (the auth's verify), so without a
 * bound an end-user token, which lives in a browser, could try keys against the provider through the
 * gateway as fast as it liked. A refusal is 429 RATE_LIMITED with Retry-After. Counted per gateway process.
 */
export class ConnectAttempts {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly perMinute: number) {}

  /** Takes one attempt of `key` (company/end user), or throws RATE_LIMITED saying when the next one is allowed. */
  take(key: string, now = Date.now()): void {
    const refillPerMs = this.perMinute / 60_000;
    const seen = this.#buckets.get(key);
    const tokens = seen ? Math.min(this.perMinute, seen.tokens + (now - seen.at) * refillPerMs) : this.perMinute;
    if (tokens < 1) {
      const retryAfterSeconds = Math.ceil((1 - tokens) / refillPerMs / 1000);
      throw GatewayError.of('RATE_LIMITED', `too many connection attempts: at most ${this.perMinute} a minute for one end user (END_USER_CONNECT_ATTEMPTS_PER_MINUTE); try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
    // Seen last, so the least recently seen end user is the first in the map: the one forgotten when it is full.
    this.#buckets.delete(key);
    if (this.#buckets.size >= MAX_TRACKED) this.#buckets.delete(this.#buckets.keys().next().value!);
    this.#buckets.set(key, { tokens: tokens - 1, at: now });
  }
}
