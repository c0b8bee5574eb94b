import type { StoreSettings } from './store-settings.ts';
import type { Store } from './port.ts';
import type { CompactionEvents } from './embedded/compaction.ts';
import { openEmbeddedStore } from './embedded/nedb-store.ts';

type StoreConfig = Pick<StoreSettings, 'mongodbUri' | 'dataDir'> & Partial<Pick<StoreSettings, 'storeQueryTimeoutMs' | 'storeCompactionIntervalMs'>>;

/**
 * MongoDB when MONGODB_URI is set, the embedded store under DATA_DIR otherwise (compacted every
 * STORE_COMPACTION_INTERVAL_MS, told to `compaction`). The driver is loaded only then: the embedded store
 * never loads mongodb.
 */
export async function openStore(config: StoreConfig, compaction: CompactionEvents = {}): Promise<Store> {
  if (!config.mongodbUri) {
    return await openEmbeddedStore(config.dataDir, { ...compaction, ...(config.storeCompactionIntervalMs === undefined ? {} : { compactionIntervalMs: config.storeCompactionIntervalMs }) });
  }
  const { openMongoStore } = await import('./mongodb/mongo-store.ts');
  return await openMongoStore(config.mongodbUri, undefined, config.storeQueryTimeoutMs === undefined ? {} : { queryTimeoutMs: config.storeQueryTimeoutMs });
}
