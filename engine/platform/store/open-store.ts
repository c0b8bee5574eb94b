import type { StoreSettings } from './store-settings.ts';
import type { Store } from './port.ts';
import { GatewayError } from '../errors/index.ts';
import type { LegacyImport } from './embedded/legacy-import.ts';
import { DEFAULT_STORE_QUERY_TIMEOUT_MS } from './mongodb/query-timeout.ts';

type StoreConfig = Pick<StoreSettings, 'mongodbUri' | 'dataDir'> &
  Partial<Pick<StoreSettings, 'databaseUrl' | 'databasePoolMax' | 'storeQueryTimeoutMs' | 'pgliteTemplateDir'>>;

/** What opening a store tells its caller (the gateway logs it). */
export interface StoreEvents {
  /** Schema migrations run at this start. */
  onMigrated?: (names: string[]) => void;
  /** The NeDB files of an earlier release were imported into the embedded database. */
  onLegacyImported?: (report: LegacyImport) => void;
  /** An idle PostgreSQL connection failed (a server restart): logged; the pool opens another when needed. */
  onIdleError?: (error: Error) => void;
  /** PostgreSQL could not be reached at start; the next attempt is in `retryInMs`. */
  onUnreachable?: (error: Error, attempt: number, retryInMs: number) => void;
  /** DATA_DIR had no embedded database: one was copied from the template or the build's empty cluster, or created (initdb). */
  onEmbeddedCreated?: (how: 'template' | 'cluster' | 'initdb', dir: string) => void;
  /** The embedded store's PGlite thread stopped while serving (out of memory, a crash), and why. */
  onEmbeddedStopped?: (reason: string) => void;
}

/** The waits between attempts to reach PostgreSQL at start: doubling from half a second to ten. */
export function startRetryDelayMs(attempt: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(attempt - 1, 5));
}

/**
 * A PostgreSQL server when DATABASE_URL is set, MongoDB when MONGODB_URI is,
 * the embedded store (PGlite) in DATA_DIR otherwise: a DATA_DIR an earlier
 * release wrote (NeDB files) is imported into it on this first start. Each
 * store's modules are loaded only when it is the one opened (PGlite's are
 * the largest, and a server store never needs them).
 */
export async function openStore(config: StoreConfig, events: StoreEvents = {}): Promise<Store> {
  const queryTimeoutMs = config.storeQueryTimeoutMs ?? DEFAULT_STORE_QUERY_TIMEOUT_MS;
  if (config.databaseUrl) {
    const { openPostgresStore } = await import('./sql/open-postgres.ts');
    // A server that is down (or not up yet) at start is waited for, with a log line per attempt; anything else
    // (a refused password, a schema newer than this release) stops the start at once.
    for (let attempt = 1; ; attempt++) {
      try {
        return await openPostgresStore(config.databaseUrl, { queryTimeoutMs, poolMax: config.databasePoolMax ?? 10, onIdleError: events.onIdleError, onMigrated: events.onMigrated });
      } catch (error) {
        if (!(error instanceof GatewayError) || error.code !== 'STORE_UNAVAILABLE') throw error;
        const delay = startRetryDelayMs(attempt);
        events.onUnreachable?.(error, attempt, delay);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
  if (config.mongodbUri) {
    const { openMongoStore } = await import('./mongodb/mongo-store.ts');
    return await openMongoStore(config.mongodbUri, undefined, { queryTimeoutMs });
  }
  const { openPgliteStore } = await import('./sql/open-pglite.ts');
  const { importLegacyDataDir } = await import('./embedded/legacy-import.ts');
  const store = await openPgliteStore(config.dataDir, {
    queryTimeoutMs,
    templateDir: config.pgliteTemplateDir,
    onCreated: (how) => events.onEmbeddedCreated?.(how, config.dataDir),
    onMigrated: events.onMigrated,
    onStopped: events.onEmbeddedStopped,
  });
  try {
    const imported = await importLegacyDataDir(config.dataDir, store);
    if (imported) events.onLegacyImported?.(imported);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}
