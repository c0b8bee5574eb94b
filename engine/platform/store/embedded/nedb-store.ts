import fs from 'node:fs/promises';
import path from 'node:path';
import NedbModule from '@seald-io/nedb';
import {
  COLLECTION_NAMES,
  DuplicateKeyError,
  LOOKUP_INDEXES,
  UNIQUE_INDEXES,
  type Collection,
  type CollectionName,
  type Filter,
  type FindOptions,
  type Store,
  type Update,
} from '../port.ts';
import type * as R from '../records.ts';
import { likeAsWhere } from './like-where.ts';
import { decodeValue, encodeFilter, encodeSort, encodeUpdate, encodeValue } from '../field-encoding.ts';
import { ownFieldsOnly } from './own-fields.ts';
import { CompactionSchedule, DEFAULT_COMPACTION_INTERVAL_MS, type CompactionEvents, type CompactionReport } from './compaction.ts';

export interface EmbeddedStoreOptions extends CompactionEvents {
  /** STORE_COMPACTION_INTERVAL_MS: how often files at least half stale are rewritten one line per record; 0 never (only on start and close). */
  compactionIntervalMs?: number;
}

/** The embedded store, and its compaction run by hand: the schedule's (files at least half stale lines), or `all` with a stale line at all. */
export interface EmbeddedStore extends Store {
  compact(options?: { all?: boolean }): Promise<CompactionReport[]>;
}

/**
 * The embedded default: one NeDB file per collection under DATA_DIR. NeDB
 * appends every write to its file; this adapter also fsyncs the file before a
 * write resolves, so what the API acknowledged survives a crash of the
 * process or the machine. Opening rewrites each file one line per record
 * (NeDB's load does), and so does the compaction schedule (compaction.ts).
 */
export async function openEmbeddedStore(dataDir: string, options: EmbeddedStoreOptions = {}): Promise<EmbeddedStore> {
  const dir = path.join(dataDir, 'store');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const collections = {} as Record<CollectionName, NedbCollection<{ id: string }>>;
  for (const name of COLLECTION_NAMES) {
    const collection = new NedbCollection(name, path.join(dir, `${name}.db`));
    await collection.open();
    collections[name] = collection;
  }
  const schedule = new CompactionSchedule(Object.values(collections), options);
  schedule.start(options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS);
  const store: EmbeddedStore = {
    kind: 'nedb',
    companies: collections.companies as unknown as Collection<R.CompanyRecord>,
    members: collections.members as unknown as Collection<R.MemberRecord>,
    apiKeys: collections.apiKeys as unknown as Collection<R.ApiKeyRecord>,
    endUsers: collections.endUsers as unknown as Collection<R.EndUserRecord>,
    connections: collections.connections as unknown as Collection<R.ConnectionRecord>,
    installations: collections.installations as unknown as Collection<R.InstallationRecord>,
    signingKeys: collections.signingKeys as unknown as Collection<R.SigningKeyRecord>,
    appConfigurations: collections.appConfigurations as unknown as Collection<R.AppConfigurationRecord>,
    pendingAuthorizations: collections.pendingAuthorizations as unknown as Collection<R.PendingAuthorizationRecord>,
    embeddingSettings: collections.embeddingSettings as unknown as Collection<R.EmbeddingSettingsRecord>,
    webhookEndpoints: collections.webhookEndpoints as unknown as Collection<R.WebhookEndpointRecord>,
    webhookDeliveries: collections.webhookDeliveries as unknown as Collection<R.WebhookDeliveryRecord>,
    // Reachable means NeDB can still append to its files: the folder is there and writable (not gone with
    // an unmounted volume, not on a file system remounted read-only).
    async ping() {
      await fs.access(dir, fs.constants.W_OK);
    },
    compact: (options = {}) => schedule.compactGrown(options.all ?? false),
    // NeDB has no transactions: the writes run one after another (port.ts).
    transaction: (work) => work(store),
    async close() {
      schedule.stop();
      await schedule.settled();
      // Every file with a stale line is left one line per record; the others are not rewritten (seconds each at 100,000 records).
      // A rewrite that fails here is reported like a scheduled one: the file is whole, and the next start compacts it.
      await schedule.compactGrown(true);
    },
  };
  return store;
}

// NeDB is CommonJS (`module.exports = Datastore`) but its types declare a default export.
type Datastore = NedbModule.default;
const Datastore = NedbModule as unknown as typeof NedbModule.default;

class NedbCollection<T extends { id: string }> implements Collection<T> {
  private readonly db: Datastore;
  /** See Collection.writeCount: this process holds the DATA_DIR lock, so every write passes here. */
  writeCount = 0;
  /**
   * Record lines in the file, and records alive (in memory): counted from the load on, so a schedule tick
   * does not walk the records. An insert adds one of each; an update or a delete adds a line (NeDB appends
   * the whole record again, or a `$$deleted` line) and leaves an earlier line stale.
   */
  fileLines = 0;
  liveRecords = 0;

  /** Lines a rewrite would drop (compaction.ts). */
  get staleLines(): number {
    return this.fileLines - this.liveRecords;
  }

  constructor(readonly name: string, private readonly filename: string) {
    this.db = new Datastore({ filename, modes: { fileMode: 0o600, dirMode: 0o700 } });
  }

  async open(): Promise<void> {
    await this.db.loadDatabaseAsync();
    for (const index of UNIQUE_INDEXES[this.name as CollectionName]) {
      const fieldName = index.fields.length === 1 ? index.fields[0]! : index.fields;
      await this.db.ensureIndexAsync({ fieldName, unique: true, sparse: index.sparse ?? false });
    }
    for (const fieldName of LOOKUP_INDEXES[this.name as CollectionName]) {
      await this.db.ensureIndexAsync({ fieldName });
    }
    this.liveRecords = this.fileLines = this.db.getAllData().length;
  }

  /** NeDB's rewrite: one line per live record and one per index, written to `<file>~`, fsynced, renamed over the file. */
  async compact(): Promise<number> {
    await this.db.compactDatafileAsync();
    // A write counted a moment after the rewrite ran is off by one line here: at worst one rewrite early or late.
    this.fileLines = this.liveRecords;
    return this.liveRecords;
  }

  async insert(record: T): Promise<T> {
    try {
      await this.db.insertAsync({ ...(encodeValue(record) as Record<string, unknown>), _id: record.id });
    } catch (error) {
      throw this.translate(error);
    } finally {
      this.writeCount++;
    }
    this.fileLines++;
    this.liveRecords++;
    await this.flush();
    return record;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const found = await this.db.findOneAsync(query(filter));
    return found ? strip<T>(found) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.db.findAsync(query(filter));
    if (options.sort) cursor = cursor.sort(encodeSort(options.sort));
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    const found = await cursor;
    return found.map((doc: Record<string, unknown>) => strip<T>(doc));
  }

  async count(filter: Filter, options: { limit?: number } = {}): Promise<number> {
    const n = await this.db.countAsync(query(filter));
    return options.limit === undefined ? n : Math.min(n, options.limit);
  }

  async updateOne(filter: Filter, update: Update<T>): Promise<boolean> {
    let numAffected: number;
    try {
      ({ numAffected } = await this.db.updateAsync(query(filter), encodeUpdate(update as Record<string, unknown>), { multi: false }));
    } catch (error) {
      throw this.translate(error);
    } finally {
      this.writeCount++;
    }
    this.fileLines += numAffected;
    if (numAffected > 0) await this.flush();
    return numAffected > 0;
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    const removed = await this.db.removeAsync(query(filter), { multi: false }).finally(() => this.writeCount++);
    this.fileLines += removed;
    this.liveRecords -= removed;
    if (removed > 0) await this.flush();
    return removed > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const removed = await this.db.removeAsync(query(filter), { multi: true }).finally(() => this.writeCount++);
    this.fileLines += removed;
    this.liveRecords -= removed;
    if (removed > 0) await this.flush();
    return removed;
  }

  /** NeDB leaves flushing its appends to the OS; an acknowledged write must be on disk. */
  private async flush(): Promise<void> {
    const handle = await fs.open(this.filename, 'r+');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  private translate(error: unknown): unknown {
    if (error && typeof error === 'object' && (error as { errorType?: string }).errorType === 'uniqueViolated') {
      const key = (error as { key?: unknown }).key;
      return new DuplicateKeyError(this.name, String(key));
    }
    return error;
  }
}

/**
 * A filter on `id` also names `_id` (every record is stored with `_id` = `id`),
 * last: NeDB narrows a query by the last of its fields that has an index, and
 * only `_id` is unique. Without it, { id, companyId } went through the
 * companyId index and matched every record of the company, one by one
 * (2.3 ms per lookup with 10,000 connections in a company).
 */
function byPrimaryKey(filter: Filter): Filter {
  return typeof filter.id === 'string' ? { ...filter, _id: filter.id } : filter;
}

/**
 * A filter as NeDB runs it: field names escaped like the stored records
 * (field-encoding.ts), `$like` as a `$where` running a matcher that cannot
 * backtrack (like-where.ts), dotted paths on own properties only.
 */
function query(filter: Filter): Filter {
  return ownFieldsOnly(likeAsWhere(encodeFilter(byPrimaryKey(filter))));
}

function strip<T>(doc: Record<string, unknown>): T {
  const { _id, ...rest } = doc;
  return decodeValue(rest) as T;
}
