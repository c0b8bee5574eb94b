import path from 'node:path';
import { integer, optional, type Env } from '../../platform/settings/env.ts';
import { defaultLoadThreads } from './load-threads.ts';

/** Where the app definitions are, and how they are loaded. */
export interface DefinitionsSettings {
  /** DEFINITIONS_DIR: the app definitions (YAML). */
  definitionsDir: string;
  /** DEFINITIONS_LOAD_THREADS: threads a large full load of definitions analyses files on (1: the loading thread alone; more: worker threads). */
  definitionsLoadThreads: number;
  /** DEFINITIONS_CACHE_DIR: where analysed definition files are kept across restarts (analysis-cache.ts); null: off. */
  definitionsCacheDir: string | null;
}

/** DEFINITIONS_DIR, DEFINITIONS_LOAD_THREADS and DEFINITIONS_CACHE_DIR (`off`, or a folder; by default DATA_DIR/cache/definitions), relative to `cwd`. */
export function definitionsSettingsFromEnv(env: Env, cwd: string, dataDir: string): DefinitionsSettings {
  const cache = optional(env, 'DEFINITIONS_CACHE_DIR');
  return {
    definitionsDir: path.resolve(cwd, optional(env, 'DEFINITIONS_DIR') ?? './definitions'),
    definitionsLoadThreads: integer(env, 'DEFINITIONS_LOAD_THREADS', defaultLoadThreads(), 1, 64),
    definitionsCacheDir: cache === 'off' ? null : cache !== undefined ? path.resolve(cwd, cache) : path.join(dataDir, 'cache', 'definitions'),
  };
}
