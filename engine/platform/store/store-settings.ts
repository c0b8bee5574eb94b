import { ConfigError, integer, optional, type Env } from '../settings/env.ts';
import { DEFAULT_COMPACTION_INTERVAL_MS } from './embedded/compaction.ts';
import { DEFAULT_STORE_QUERY_TIMEOUT_MS } from './mongodb/query-timeout.ts';

/** Which store the gateway opens, and its limits. */
export interface StoreSettings {
  /** DATA_DIR: where the embedded store keeps its files. */
  dataDir: string;
  /** MONGODB_URI: MongoDB replaces the embedded store when set. */
  mongodbUri: string | undefined;
  /** STORE_QUERY_TIMEOUT_MS: the `maxTimeMS` of every MongoDB query; past it the request is 503 QUERY_TIMEOUT. */
  storeQueryTimeoutMs: number;
  /** STORE_COMPACTION_INTERVAL_MS: how often the embedded store rewrites the files that grew, one line per record; 0 only on start and stop. */
  storeCompactionIntervalMs: number;
}

/** MONGODB_URI, STORE_QUERY_TIMEOUT_MS, STORE_COMPACTION_INTERVAL_MS (DATA_DIR is the gateway's own, read beside them). */
export function storeSettingsFromEnv(env: Env): Omit<StoreSettings, 'dataDir'> {
  const mongodbUri = optional(env, 'MONGODB_URI');
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\/\S+$/.test(mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// connection string');
  }
  return {
    mongodbUri,
    storeQueryTimeoutMs: integer(env, 'STORE_QUERY_TIMEOUT_MS', DEFAULT_STORE_QUERY_TIMEOUT_MS, 1, 600_000),
    storeCompactionIntervalMs: integer(env, 'STORE_COMPACTION_INTERVAL_MS', DEFAULT_COMPACTION_INTERVAL_MS, 0, 86_400_000),
  };
}
