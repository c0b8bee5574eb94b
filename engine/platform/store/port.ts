import type {
  ApiKeyRecord,
  AppConfigurationRecord,
  PendingAuthorizationRecord,
  EmbeddingSettingsRecord,
  CompanyRecord,
  ConnectionRecord,
  EndUserRecord,
  InstallationRecord,
  MemberRecord,
  SigningKeyRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from './records.ts';

/**
 * The storage port. Filters are MongoDB filter documents built by the engine
 * (from allow-listed fields and operators, never passed through from a
 * request), so the embedded store and MongoDB run the same queries.
 *
 * One operator is the port's own: `{ field: { $like: 'acme*' } }`, `*` for
 * any characters, the rest literal, anchored, case-insensitive
 * (engine/platform/store/like/). Each adapter runs it in a form that cannot
 * backtrack: a matcher on the embedded store, a tempered `$regex` on MongoDB.
 */
export type Filter = Record<string, unknown>;

export interface FindOptions {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
}

/** The update operators both adapters support. */
export interface Update<T> {
  $set?: Partial<T>;
  $unset?: Partial<Record<keyof T, true>>;
  $inc?: Partial<Record<keyof T, number>>;
}

export interface Collection<T extends { id: string }> {
  /** Inserts a new record; a unique index violation is a DuplicateKeyError. */
  insert(record: T): Promise<T>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /**
   * How many match; with `limit`, counting stops there (the answer is at most `limit`), so its cost is bounded.
   * `sort` is the page's order (list-page.ts): where the filter bounds its first field (createdOn>…), the SQL stores
   * count in that field's order, from the index the page reads (sql-collection.ts); the answer is the same.
   */
  count(filter: Filter, options?: { limit?: number; sort?: FindOptions['sort'] }): Promise<number>;
  /** Updates the first record matching; false when none matched (a lost compare-and-set, say). */
  updateOne(filter: Filter, update: Update<T>): Promise<boolean>;
  deleteOne(filter: Filter): Promise<boolean>;
  /** Deletes every record matching; answers how many. */
  deleteMany(filter: Filter): Promise<number>;
  /**
   * How many writes this process has made to the collection, counted once
   * each write has been applied. Only an adapter whose process is the
   * collection's sole writer has it (the embedded store, behind its DATA_DIR
   * lock), so a cache over the collection can tell it is stale; undefined
   * where another process may write (MongoDB), and nothing may be cached.
   */
  readonly writeCount?: number;
}

export interface Store {
  /** embedded: PGlite in DATA_DIR; postgres: a PostgreSQL server (DATABASE_URL); mongodb (MONGODB_URI); nedb: the files an earlier release wrote, read only to migrate them. */
  readonly kind: 'embedded' | 'postgres' | 'mongodb' | 'nedb';
  readonly companies: Collection<CompanyRecord>;
  readonly members: Collection<MemberRecord>;
  readonly apiKeys: Collection<ApiKeyRecord>;
  readonly endUsers: Collection<EndUserRecord>;
  readonly connections: Collection<ConnectionRecord>;
  readonly installations: Collection<InstallationRecord>;
  readonly signingKeys: Collection<SigningKeyRecord>;
  readonly appConfigurations: Collection<AppConfigurationRecord>;
  readonly pendingAuthorizations: Collection<PendingAuthorizationRecord>;
  readonly embeddingSettings: Collection<EmbeddingSettingsRecord>;
  readonly webhookEndpoints: Collection<WebhookEndpointRecord>;
  /** The webhook outbox: one record per event and endpoint, written with the change, sent by the delivery worker. */
  readonly webhookDeliveries: Collection<WebhookDeliveryRecord>;
  /**
   * Runs `work` so that its writes commit together or not at all: on the SQL stores (embedded, postgres)
   * one database transaction, which every operation `work` starts joins, through this store or any
   * wrapper of it, and a transaction begun inside it too. A thrown error rolls it back and is thrown
   * again. MongoDB and NeDB run the work's writes one after another, without a transaction.
   *
   * `exclusive` names work that two gateways of a fleet must not run at once (the bootstrap of an
   * empty store: both would see no company and both write one): on the SQL stores the transaction
   * first takes a lock of that name (held until it ends), so the second runs after the first and
   * sees its writes; begun inside another transaction, it takes the lock there, held until that one
   * ends. NeDB has one writer (the DATA_DIR lock). MongoDB takes no lock another process sees, only
   * one within its own (works of one name that process runs wait for each other; a work must not
   * begin another of its own name inside it, which would wait forever): its bootstrap is resumable
   * instead, a connection's delete is checked again after it (and written back when an installation
   * appeared meanwhile), and creates sent at once to different gateways can pass the webhook
   * endpoints' cap and END_USER_MAX_CONNECTIONS there (N gateways: by at most N - 1).
   */
  transaction<R>(work: (store: Store) => Promise<R>, options?: { exclusive?: string }): Promise<R>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const COLLECTION_NAMES = [
  'companies',
  'members',
  'apiKeys',
  'endUsers',
  'connections',
  'installations',
  'signingKeys',
  'appConfigurations',
  'pendingAuthorizations',
  'embeddingSettings',
  'webhookEndpoints',
  'webhookDeliveries',
] as const;
export type CollectionName = (typeof COLLECTION_NAMES)[number];

/** The unique indexes every adapter creates at start. `id` is unique everywhere. */
export const UNIQUE_INDEXES: Record<CollectionName, { fields: string[]; sparse?: boolean }[]> = {
  companies: [],
  members: [{ fields: ['companyId', 'userId'] }, { fields: ['companyId', 'email'] }],
  apiKeys: [{ fields: ['hash'] }],
  endUsers: [{ fields: ['externalKey'], sparse: true }],
  connections: [],
  installations: [],
  signingKeys: [],
  appConfigurations: [{ fields: ['configKey'] }],
  pendingAuthorizations: [],
  embeddingSettings: [{ fields: ['companyId'] }],
  webhookEndpoints: [],
  webhookDeliveries: [],
};

/** Non-unique indexes for the queries the engine runs often. */
export const LOOKUP_INDEXES: Record<CollectionName, string[]> = {
  companies: [],
  members: ['companyId', 'userId'],
  apiKeys: ['companyId'],
  endUsers: ['companyId'],
  connections: ['companyId'],
  installations: ['companyId'],
  signingKeys: [],
  appConfigurations: ['companyId'],
  // Each authorization's start deletes the expired ones and reads its end user's under way (authorize.ts).
  pendingAuthorizations: ['expiresAt', 'companyId'],
  // A CORS preflight asks whether any company allows an origin (a multikey index on the array).
  embeddingSettings: ['allowedOrigins'],
  webhookEndpoints: ['companyId'],
  // The worker's query (pending and due) and the listing of an endpoint's deliveries.
  webhookDeliveries: ['status', 'endpointId'],
};

export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, detail: string) {
    super(`duplicate key in ${collection}: ${detail}`);
    this.name = 'DuplicateKeyError';
  }
}
