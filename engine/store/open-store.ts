import type { Config } from '../config/config.ts';
import type { Store } from './port.ts';
import { openEmbeddedStore } from './embedded/nedb-store.ts';
import { openMongoStore } from './mongodb/mongo-store.ts';

/** MongoDB when MONGODB_URI is set, the embedded store under DATA_DIR otherwise. */
export async function openStore(config: Pick<Config, 'mongodbUri' | 'dataDir'> & Partial<Pick<Config, 'storeQueryTimeoutMs'>>): Promise<Store> {
  if (!config.mongodbUri) return await openEmbeddedStore(config.dataDir);
  return await openMongoStore(config.mongodbUri, undefined, config.storeQueryTimeoutMs === undefined ? {} : { queryTimeoutMs: config.storeQueryTimeoutMs });
}
