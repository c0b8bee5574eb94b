import type { Config } from '../config/config.ts';
import type { Store } from './port.ts';
import { openEmbeddedStore } from './embedded/nedb-store.ts';

/** MongoDB when MONGODB_URI is set, the embedded store under DATA_DIR otherwise. The driver is loaded only then: the embedded store never loads mongodb. */
export async function openStore(config: Pick<Config, 'mongodbUri' | 'dataDir'> & Partial<Pick<Config, 'storeQueryTimeoutMs'>>): Promise<Store> {
  if (!config.mongodbUri) return await openEmbeddedStore(config.dataDir);
  const { openMongoStore } = await import('./mongodb/mongo-store.ts');
  return await openMongoStore(config.mongodbUri, undefined, config.storeQueryTimeoutMs === undefined ? {} : { queryTimeoutMs: config.storeQueryTimeoutMs });
}
