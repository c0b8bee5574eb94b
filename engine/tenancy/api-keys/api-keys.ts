import { hash, randomBytes } from 'node:crypto';
import { newId } from '../../platform/ids.ts';
import type { ApiKeyRecord, Collection, Store } from '../../platform/store/index.ts';
import { RecentRecords } from '../../platform/store/recent-records.ts';

/** An API key a person may choose (BOOTSTRAP_API_KEY): long enough, and safe in a header. */
export const CHOSEN_API_KEY = /^[A-Za-z0-9._~-]{20,200}$/;

/** Generated keys look like `igw_` + 43 base64url characters (32 random bytes). */
export const API_KEY_PREFIX = 'igw_';

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** The hex SHA-256 of the key's UTF-8 bytes, as stored; one-shot `hash` is half the cost of a Hash object (~2 µs against ~4). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A well-formed key is a generated one or one a person chose for BOOTSTRAP_API_KEY. */
export function isWellFormedApiKey(candidate: string): boolean {
  return CHOSEN_API_KEY.test(candidate);
}

/** Stores a key's hash; the key itself is returned to the caller once and kept nowhere. */
export async function issueApiKey(
  store: Store,
  owner: { companyId: string; userId: string },
  name: string,
  key: string = generateApiKey(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const record: ApiKeyRecord = {
    id: newId('key'),
    companyId: owner.companyId,
    userId: owner.userId,
    name,
    prefix: key.slice(0, 8),
    hash: hashApiKey(key),
    createdOn: new Date(),
    revokedOn: null,
  };
  await store.apiKeys.insert(record);
  return { key, record };
}

/** Active keys recently found, by hash; one cache per keys collection, so stores opened side by side (tests) never share entries. */
const verified = new WeakMap<Collection<ApiKeyRecord>, RecentRecords<ApiKeyRecord>>();

/** The active key with this value, or null: unknown, revoked and malformed look the same. */
export async function findActiveApiKey(store: Store, key: string): Promise<ApiKeyRecord | null> {
  if (!isWellFormedApiKey(key)) return null;
  let cache = verified.get(store.apiKeys);
  if (!cache) verified.set(store.apiKeys, (cache = new RecentRecords()));
  const hash = hashApiKey(key);
  return await cache.find(store.apiKeys, hash, () => store.apiKeys.findOne({ hash, revokedOn: null }));
}

/**
 * The active key with this value when it was found recently and no key has
 * been written since (RecentRecords.peek: a revocation empties the cache),
 * at once and without a promise; undefined: ask findActiveApiKey.
 */
export function recentActiveApiKey(store: Store, key: string): ApiKeyRecord | undefined {
  const cache = verified.get(store.apiKeys);
  if (!cache || !isWellFormedApiKey(key)) return undefined;
  return cache.peek(store.apiKeys, hashApiKey(key));
}
