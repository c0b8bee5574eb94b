import type { ApiKeyRecord, Collection } from '../store/index.ts';

/** Enough for every key a deployment's callers use at once; the oldest entry makes room. */
export const VERIFIED_KEYS_LIMIT = 1_000;

/**
 * The active API keys recently found, by hash, so a request with a known key
 * skips the store query. Only where the store says it is the keys'
 * sole writer (`writeCount`, the embedded store): any write to the keys
 * collection (a revocation through the API or the admin socket, an issued
 * key) empties the cache before the next lookup, so a revoked key is
 * refused on the very next request. Unknown and revoked keys are never
 * cached: a miss always asks the store.
 */
export class VerifiedKeys {
  private readonly entries = new Map<string, ApiKeyRecord>();
  /** The collection's write count the entries were read at. */
  private readAt = -1;

  constructor(private readonly limit: number = VERIFIED_KEYS_LIMIT) {}

  async find(keys: Collection<ApiKeyRecord>, hash: string): Promise<ApiKeyRecord | null> {
    const writes = keys.writeCount;
    if (writes === undefined) return await keys.findOne({ hash, revokedOn: null });
    if (writes !== this.readAt) {
      this.entries.clear();
      this.readAt = writes;
    }
    const cached = this.entries.get(hash);
    if (cached) return cached;
    const found = await keys.findOne({ hash, revokedOn: null });
    // A write that landed while the query ran may have changed the answer: keep it only if none did.
    if (found && keys.writeCount === writes && this.readAt === writes) this.remember(hash, found);
    return found;
  }

  private remember(hash: string, record: ApiKeyRecord): void {
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, Object.freeze(record));
  }
}
