import { ConfigError, integer, optional, type Env } from '../settings/env.ts';
import { DEFAULT_COMPACTION_INTERVAL_MS } from './embedded/compaction.ts';
import { DEFAULT_STORE_QUERY_TIMEOUT_MS } from './mongodb/query-timeout.ts';

/** Which store the gateway opens, and its limits. */
export interface StoreSettings {
  /** DATA_DIR: where the embedded store keeps its files. */
  dataDir: string;
  /** DATABASE_URL (or DATABASE_URL_FILE, a file holding it): a PostgreSQL server replaces the embedded store when set. */
  databaseUrl: string | undefined;
  /** DATABASE_POOL_MAX: connections this gateway opens to PostgreSQL at most. */
  databasePoolMax: number;
  /** MONGODB_URI: MongoDB replaces the embedded store when set. */
  mongodbUri: string | undefined;
  /** STORE_QUERY_TIMEOUT_MS: PostgreSQL's statement_timeout and MongoDB's `maxTimeMS` of every query; past it the request is 503 QUERY_TIMEOUT. */
  storeQueryTimeoutMs: number;
  /** PGLITE_TEMPLATE_DIR: a DATA_DIR whose embedded database is copied into a new DATA_DIR instead of creating one (test suites, benchmarks). */
  pgliteTemplateDir: string | undefined;
  /** STORE_COMPACTION_INTERVAL_MS: only for a DATA_DIR of the NeDB files an earlier release wrote, until they are migrated. */
  storeCompactionIntervalMs: number;
}

/** DATABASE_URL(_FILE), DATABASE_POOL_MAX, MONGODB_URI, STORE_QUERY_TIMEOUT_MS, STORE_COMPACTION_INTERVAL_MS (DATA_DIR is the gateway's own, read beside them). */
export function storeSettingsFromEnv(env: Env): Omit<StoreSettings, 'dataDir'> {
  const mongodbUri = optional(env, 'MONGODB_URI');
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\/\S+$/.test(mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// connection string');
  }
  const databaseUrl = databaseUrlFromEnv(env);
  if (databaseUrl !== undefined && mongodbUri !== undefined) {
    throw new ConfigError('DATABASE_URL', 'and MONGODB_URI are both set; set one of them (the store the gateway uses)');
  }
  return {
    databaseUrl,
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    mongodbUri,
    storeQueryTimeoutMs: integer(env, 'STORE_QUERY_TIMEOUT_MS', DEFAULT_STORE_QUERY_TIMEOUT_MS, 1, 600_000),
    storeCompactionIntervalMs: integer(env, 'STORE_COMPACTION_INTERVAL_MS', DEFAULT_COMPACTION_INTERVAL_MS, 0, 86_400_000),
    pgliteTemplateDir: optional(env, 'PGLITE_TEMPLATE_DIR'),
  };
}

/**
 * DATABASE_URL (DATABASE_URL_FILE, a mounted secret, is read into it with
 * the other secrets: engine/config/secret-files.ts), checked for its form:
 * postgres:// or postgresql://, a host, no spaces. A problem names the
 * variable and never repeats the value, which holds the password.
 */
export function databaseUrlFromEnv(env: Env): string | undefined {
  const url = optional(env, 'DATABASE_URL');
  if (url === undefined) return undefined;
  const problem = urlProblem(url);
  if (problem) throw new ConfigError('DATABASE_URL', `${problem} (the value is not shown: it may hold a password)`);
  return url;
}

function urlProblem(url: string): string | null {
  if (/\s/.test(url)) return 'must be a postgres:// connection string without spaces';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a postgres://user:password@host:5432/database connection string, and is not a URL';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return `must start with postgres:// or postgresql:// (it starts with ${parsed.protocol}//)`;
  if (!parsed.hostname && !parsed.searchParams.get('host')) return 'must name a host (postgres://user:password@host:5432/database)';
  if (parsed.port !== '' && !(Number(parsed.port) >= 1 && Number(parsed.port) <= 65535)) return 'has a port that is not 1 to 65535';
  return null;
}

/** A connection string fit for a log line: the password replaced. */
export function redactedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable connection string)';
  }
}
