import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely, type Transaction } from 'kysely';
import { COLLECTION_NAMES, type Collection, type CollectionName, type Store } from '../port.ts';
import type * as R from '../records.ts';
import { SqlCollection, type SqlRunner } from './sql-collection.ts';
import { TABLES } from './tables.ts';
import { translateSqlError } from './sql-errors.ts';

export interface SqlStoreOptions {
  kind: 'embedded' | 'postgres';
  /** STORE_QUERY_TIMEOUT_MS, to name in a QUERY_TIMEOUT. */
  queryTimeoutMs: number;
  /**
   * Counts writes for caches over the collections (port.ts `writeCount`): only where this process is the
   * database's only writer (the embedded store, behind its DATA_DIR lock).
   */
  soleWriter: boolean;
  /** Checked by ping before the query (the embedded store: its folder is there and writable). */
  reachable?: () => Promise<void>;
  close(): Promise<void>;
}

/**
 * The port over SQL, the same for PGlite in DATA_DIR and a PostgreSQL
 * server: a Kysely instance (its dialect is the only difference), the
 * tables of tables.ts, and `transaction`, which runs its work on one
 * database transaction. The transaction is the work's context: every
 * operation the work starts, through this store or any wrapper of it (the
 * timed and traced stores, the services a request holds), runs in it, and
 * a transaction begun inside one joins it.
 */
export function sqlStore(db: Kysely<any>, options: SqlStoreOptions): Store {
  const writes = new Map<CollectionName, number>(COLLECTION_NAMES.map((name) => [name, 0]));
  const active = new AsyncLocalStorage<Transaction<any>>();
  /**
   * Transactions that have ended. Work begun inside a transaction and going on after it (a timer: the webhook
   * worker woken by an event a request wrote) keeps it as its context; while another transaction keeps the
   * context switched on, such work would run on the ended one ("Transaction is already committed"). It runs
   * on the store instead, as work begun outside a transaction does.
   */
  const ended = new WeakSet<Transaction<any>>();
  const open = (): Transaction<any> | undefined => {
    const trx = active.getStore();
    return trx && !ended.has(trx) ? trx : undefined;
  };
  let transactionsOpen = 0;
  const runner: SqlRunner = {
    db: () => open() ?? db,
    async run(collection, work) {
      try {
        return await work();
      } catch (error) {
        throw translateSqlError(error, collection, options.queryTimeoutMs);
      }
    },
  };
  const collections = {} as Record<CollectionName, Collection<{ id: string }>>;
  for (const name of COLLECTION_NAMES) {
    const inner = new SqlCollection<{ id: string }>(name, TABLES[name], runner);
    collections[name] = options.soleWriter ? counted(inner, name, writes) : inner;
  }
  const store: Store = {
    kind: options.kind,
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
    async transaction(work, transactionOptions) {
      const exclusive = transactionOptions?.exclusive;
      const outer = open();
      if (outer) {
        // Joined to the transaction already open, whose end releases the lock taken here.
        if (exclusive !== undefined) await sql`SELECT pg_advisory_xact_lock(hashtext(${exclusive}))`.execute(outer);
        return await work(store);
      }
      transactionsOpen++;
      try {
        let current: Transaction<any> | undefined;
        try {
          return await db.transaction().execute(async (trx) => {
            current = trx;
            // Held until the transaction ends: another gateway's transaction of the same name waits here.
            if (exclusive !== undefined) await sql`SELECT pg_advisory_xact_lock(hashtext(${exclusive}))`.execute(trx);
            return await active.run(trx, () => work(store));
          });
        } finally {
          if (current) ended.add(current);
        }
      } catch (error) {
        // A cache filled inside the transaction may hold what it rolled back: every cache is emptied. (A committed
        // one changed only what its writes changed, and each write already emptied its collection's cache.)
        if (options.soleWriter) for (const name of COLLECTION_NAMES) writes.set(name, writes.get(name)! + 1);
        throw translateSqlError(error, 'transaction', options.queryTimeoutMs);
      } finally {
        // With no transaction open, the context is switched off: on Node 20 an AsyncLocalStorage that has run
        // keeps a hook on every promise the process makes from then on (its context is carried along), a cost
        // every request paid after the first transaction (the bootstrap's) though transactions are rare.
        if (--transactionsOpen === 0) active.disable();
      }
    },
    async ping() {
      await options.reachable?.();
      await runner.run('ping', () => sql`SELECT 1`.execute(db));
    },
    close: options.close,
  };
  return store;
}

/** A collection whose writes are counted (port.ts `writeCount`), in a count shared with its transactions. */
function counted<T extends { id: string }>(inner: SqlCollection<T>, name: CollectionName, writes: Map<CollectionName, number>): Collection<T> {
  const write = <A extends unknown[], R>(op: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await op.apply(inner, args);
    } finally {
      writes.set(name, writes.get(name)! + 1);
    }
  };
  return {
    insert: write(inner.insert),
    findOne: (filter) => inner.findOne(filter),
    find: (filter, options) => inner.find(filter, options),
    count: (filter, options) => inner.count(filter, options),
    updateOne: write(inner.updateOne),
    deleteOne: write(inner.deleteOne),
    deleteMany: write(inner.deleteMany),
    get writeCount() {
      return writes.get(name)!;
    },
  };
}
