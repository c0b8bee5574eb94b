import type { Config } from '../config/config.ts';
import type { Store } from './port.ts';
import { openEmbeddedStore } from './embedded/nedb-store.ts';
import { openMongoStore } from './mongodb/mongo-store.ts';

/** MongoDB when MONGODB_URI is set, the embedded store under DATA_DIR otherwise. */
export async function openStore(config: Pick<Config, 'mongodbUri' | 'dataDir'>): Promise<Store> {
  return config.mongodbUri ? await openMongoStore(config.mongodbUri) : await openEmbeddedStore(config.dataDir);
}
