import { MongoClient, MongoServerError, type Collection as MongoCollection, type Document } from 'mongodb';
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
import { decodeValue, encodeFilter, encodeSort, encodeUpdate, encodeValue } from '../field-encoding.ts';
import { likeAsRegex } from './like-regex.ts';
import { NamedLocks } from '../named-locks.ts';
import { DEFAULT_STORE_QUERY_TIMEOUT_MS, queryTimeoutError } from './query-timeout.ts';

const MAX_TIME_MS_EXPIRED = 50;

/** The server ended a query at its `maxTimeMS` (query-timeout.ts). */
function isQueryTimeout(error: unknown): boolean {
  return error instanceof MongoServerError && (error.code === MAX_TIME_MS_EXPIRED || error.codeName === 'MaxTimeMSExpired');
}

export interface MongoStoreOptions {
  /** `maxTimeMS` of every query (STORE_QUERY_TIMEOUT_MS). */
  queryTimeoutMs?: number;
}

/**
 * MongoDB adapter: what a fleet of gateway instances shares. Records keep
 * their own `id` as `_id`; indexes are created at start. Writes use the
 * driver's default write concern (majority on a replica set). Every query
 * (find, count, update, delete) carries `maxTimeMS`; `$like` becomes a
 * `$regex` that cannot backtrack without bound (like-regex.ts).
 */
export async function openMongoStore(uri: string, dbName?: string, options: MongoStoreOptions = {}): Promise<Store> {
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_STORE_QUERY_TIMEOUT_MS;
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  // The database named in the URI (the driver's default, "test", when none is).
  const db = client.db(dbName);
  const collections = {} as Record<CollectionName, MongoCollectionAdapter<{ id: string }>>;
  for (const name of COLLECTION_NAMES) {
    const collection = db.collection(name);
    for (const index of UNIQUE_INDEXES[name]) {
      const keys = Object.fromEntries(index.fields.map((f) => [f, 1 as const]));
      await collection.createIndex(keys, { unique: true, sparse: index.sparse ?? false });
    }
    for (const field of LOOKUP_INDEXES[name]) await collection.createIndex({ [field]: 1 });
    collections[name] = new MongoCollectionAdapter(name, collection, queryTimeoutMs);
  }
  const locks = new NamedLocks();
  const store: Store = {
    kind: 'mongodb',
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
    // Without a replica set MongoDB has no transactions: the writes run one after another (port.ts). An `exclusive`
    // work waits for the one of that name this process runs, not for another process's.
    transaction: (work, options) => (options?.exclusive === undefined ? work(store) : locks.run(options.exclusive, () => work(store))),
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await client.close();
    },
  };
  return store;
}

/** One collection; exported for the specs that run it against a stand-in for the driver. */
export class MongoCollectionAdapter<T extends { id: string }> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly collection: MongoCollection<Document>,
    private readonly queryTimeoutMs: number,
  ) {}

  async insert(record: T): Promise<T> {
    try {
      await this.collection.insertOne({ ...(encodeValue(record) as Document), _id: record.id as unknown as Document['_id'] });
    } catch (error) {
      throw this.translate(error);
    }
    return record;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const found = await this.query(() => this.collection.findOne(this.filter(filter), this.limits()));
    return found ? strip<T>(found) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.collection.find(this.filter(filter), this.limits());
    if (options.sort) cursor = cursor.sort(encodeSort(options.sort));
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return (await this.query(() => cursor.toArray())).map((doc) => strip<T>(doc));
  }

  async count(filter: Filter, options: { limit?: number } = {}): Promise<number> {
    return await this.query(() => this.collection.countDocuments(this.filter(filter), { ...this.limits(), ...(options.limit === undefined ? {} : { limit: options.limit }) }));
  }

  async updateOne(filter: Filter, update: Update<T>): Promise<boolean> {
    const result = await this.query(() => this.collection.updateOne(this.filter(filter), encodeUpdate(update as Record<string, unknown>), this.limits()));
    return result.matchedCount > 0;
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    const result = await this.query(() => this.collection.deleteOne(this.filter(filter), this.limits()));
    return result.deletedCount > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const result = await this.query(() => this.collection.deleteMany(this.filter(filter), this.limits()));
    return result.deletedCount;
  }

  /** A filter as MongoDB runs it: field names escaped like the stored records (field-encoding.ts), `$like` as a regex that cannot backtrack (like-regex.ts). */
  private filter(filter: Filter): Document {
    return likeAsRegex(encodeFilter(filter));
  }

  private limits(): { maxTimeMS: number } {
    return { maxTimeMS: this.queryTimeoutMs };
  }

  /** Runs one query: its time limit ending it is QUERY_TIMEOUT; a unique index violation a DuplicateKeyError. */
  private async query<R>(run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      if (isQueryTimeout(error)) throw queryTimeoutError(this.queryTimeoutMs);
      throw this.translate(error);
    }
  }

  private translate(error: unknown): unknown {
    if (error instanceof MongoServerError && error.code === 11000) {
      return new DuplicateKeyError(this.name, JSON.stringify(error.keyValue ?? {}));
    }
    return error;
  }
}

function strip<T>(doc: Document): T {
  const { _id, ...rest } = doc;
  return decodeValue(rest) as T;
}
