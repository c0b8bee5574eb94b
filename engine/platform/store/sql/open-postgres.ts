import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Store } from '../port.ts';
import { redactedDatabaseUrl } from '../store-settings.ts';
import { storeUnavailableError } from '../store-unavailable.ts';
import { callbackQueries } from './callback-queries.ts';
import { migrateToLatest } from './migrate.ts';
import { translateSqlError } from './sql-errors.ts';
import { sqlStore } from './sql-store.ts';

/** How much longer than statement_timeout the driver waits for an answer: the server's own timeout, when it can send it, comes first. */
export const ANSWER_GRACE_MS = 2_000;

export interface PostgresStoreOptions {
  queryTimeoutMs: number;
  poolMax: number;
  /** How long a request waits for a pooled connection (or a new one) before STORE_UNAVAILABLE. */
  connectTimeoutMs?: number;
  /** An idle pooled connection failed (the server restarted): logged, never a crash; the pool opens another when needed. */
  onIdleError?: (error: Error) => void;
  onMigrated?: (names: string[]) => void;
}

/**
 * A PostgreSQL server (DATABASE_URL): what a fleet of gateways shares. The
 * pg driver's pool, every statement under statement_timeout
 * (STORE_QUERY_TIMEOUT_MS), the schema migrated at open under the
 * migrations' lock. The same tables and queries as the embedded store.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: options.queryTimeoutMs,
    // A server that stops answering on an open connection (a frozen host, a partition) never reports its own
    // statement_timeout: the driver gives up on the answer a little after it (the connection is then closed,
    // callback-queries.ts), and TCP keepalive finds a connection whose peer is gone while it is idle.
    query_timeout: options.queryTimeoutMs + ANSWER_GRACE_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'integration-gateway',
  });
  pool.on('error', (error) => options.onIdleError?.(error));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: callbackQueries(pool) }) });
  try {
    const ran = await migrateToLatest(db);
    if (ran.length) options.onMigrated?.(ran);
  } catch (error) {
    await db.destroy().catch(() => {});
    const translated = translateSqlError(error, 'migrations', options.queryTimeoutMs);
    if (translated !== error) throw storeUnavailableError(`${redactedDatabaseUrl(url)}: ${(error as Error).message}`);
    throw error;
  }
  return sqlStore(db, { kind: 'postgres', queryTimeoutMs: options.queryTimeoutMs, soleWriter: false, close: () => db.destroy() });
}
