import { deepFreeze } from '../deep-freeze.ts';

/** Enough for every key or connection a deployment's callers use at once; the oldest entry makes room. */
export const RECENT_RECORDS_LIMIT = 1_000;

/**
 * Records a request looks up every time (the caller's API key, the run's
 * connection), remembered by a key so a repeated lookup skips the store
 * query. Only where the collection reports `writeCount` (the embedded store,
 * whose process is its sole writer): any write to the collection (a key
 * revoked through the admin socket, a connection deleted, a token renewed)
 * empties the cache before the next lookup, so no change is ever served
 * stale. Misses are never remembered: they always ask the store. Records
 * are handed out frozen, so no caller can change what the next one gets.
 */
export class RecentRecords<T extends object> {
  private readonly entries = new Map<string, T>();
  /** The collection's write count the entries were read at. */
  private readAt = -1;

  constructor(private readonly limit: number = RECENT_RECORDS_LIMIT) {}

  async find(collection: { readonly writeCount?: number }, key: string, query: () => Promise<T | null>): Promise<T | null> {
    const writes = collection.writeCount;
    if (writes === undefined) return await query();
    if (writes !== this.readAt) {
      this.entries.clear();
      this.readAt = writes;
    }
    const cached = this.entries.get(key);
    if (cached) return cached;
    const found = await query();
    // A write that landed while the query ran may have changed the answer: keep it only if none did.
    if (found && collection.writeCount === writes && this.readAt === writes) this.remember(key, found);
    return found;
  }

  /**
   * The record remembered for `key`, without asking the store and without a
   * promise, or undefined (not remembered, or the collection was written
   * since: then ask with find, which empties the cache first).
   */
  peek(collection: { readonly writeCount?: number }, key: string): T | undefined {
    const writes = collection.writeCount;
    if (writes === undefined || writes !== this.readAt) return undefined;
    return this.entries.get(key);
  }

  private remember(key: string, record: T): void {
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, deepFreeze(record));
  }
}
