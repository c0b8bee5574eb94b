import type { StoreSettings } from './store-settings.ts';
import type { Store } from './port.ts';
import { importLegacyDataDir, type LegacyImport } from './embedded/legacy-import.ts';
import { openPgliteStore } from './sql/open-pglite.ts';
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
}

/**
 * A PostgreSQL server when DATABASE_URL is set, MongoDB when MONGODB_URI is,
 * the embedded store (PGlite) in DATA_DIR otherwise: a DATA_DIR an earlier
 * release wrote (NeDB files) is imported into it on this first start. The
 * drivers are loaded only when used: the embedded store loads neither pg nor
 * mongodb.
 */
export async function openStore(config: StoreConfig, events: StoreEvents = {}): Promise<Store> {
  const queryTimeoutMs = config.storeQueryTimeoutMs ?? DEFAULT_STORE_QUERY_TIMEOUT_MS;
  if (config.databaseUrl) {
    const { openPostgresStore } = await import('./sql/open-postgres.ts');
    return await openPostgresStore(config.databaseUrl, { queryTimeoutMs, poolMax: config.databasePoolMax ?? 10, onIdleError: events.onIdleError, onMigrated: events.onMigrated });
  }
  if (config.mongodbUri) {
    const { openMongoStore } = await import('./mongodb/mongo-store.ts');
    return await openMongoStore(config.mongodbUri, undefined, { queryTimeoutMs });
  }
  const store = await openPgliteStore(config.dataDir, { queryTimeoutMs, templateDir: config.pgliteTemplateDir, onMigrated: events.onMigrated });
  try {
    const imported = await importLegacyDataDir(config.dataDir, store);
    if (imported) events.onLegacyImported?.(imported);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}
