import { deepFreeze } from '../deep-freeze.ts';
import { open, type SealedSecret } from './cipher.ts';
import type { Keyring } from './keyring.ts';

/** Enough for every connection a busy gateway runs through at once; the oldest entry makes room. */
export const OPENED_SECRETS_LIMIT = 1_000;

interface Opened {
  sealed: SealedSecret;
  secret: unknown;
}

/** One cache per keyring: what a key opened, no other key can be asked for. */
const caches = new WeakMap<Keyring, Map<string, Opened>>();

/**
 * `open`, remembering what was opened for the run path, which opens the same
 * connection's credentials on every run (AES-GCM set-up and JSON parsing,
 * ~12 µs). An entry is used only when the sealed secret is the very one that
 * was opened (same key id, nonce, tag and ciphertext: a renewal or a
 * re-encryption seals anew, with a fresh nonce, and misses); anything else is
 * opened and checked as `open` does. The secret is returned frozen, so no
 * caller can change what the next run gets. The keyring that opens these
 * secrets stays in this process's memory for its whole life anyway, so
 * keeping a bounded number of opened ones beside it exposes nothing more.
 */
export function openRemembered<T>(keyring: Keyring, recordId: string, sealed: SealedSecret, limit: number = OPENED_SECRETS_LIMIT): Readonly<T> {
  let cache = caches.get(keyring);
  if (!cache) caches.set(keyring, (cache = new Map()));
  const known = cache.get(recordId);
  if (known && sameSealed(known.sealed, sealed)) return known.secret as T;
  const secret = deepFreeze(open<T>(keyring, recordId, sealed));
  cache.delete(recordId);
  if (cache.size >= limit) cache.delete(cache.keys().next().value!);
  cache.set(recordId, { sealed: { ...sealed }, secret });
  return secret;
}

function sameSealed(a: SealedSecret, b: SealedSecret): boolean {
  return a.v === b.v && a.kid === b.kid && a.iv === b.iv && a.tag === b.tag && a.data === b.data;
}
