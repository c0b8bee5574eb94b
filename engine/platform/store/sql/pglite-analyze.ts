import { sql, type Kysely } from 'kysely';
import { COLLECTION_NAMES, type CollectionName, type Store } from '../port.ts';
import { TABLES } from './tables.ts';

/** How long after the embedded store opens it first looks for stale statistics, and how often after that. */
export const ANALYZE_FIRST_MS = 5_000;
export const ANALYZE_EVERY_MS = 60_000;

/**
 * PostgreSQL's autoanalyze rule for the embedded store, which has none:
 * PGlite runs no autovacuum daemon, so nothing ever ran ANALYZE on a
 * DATA_DIR, and a list's plan was chosen without statistics. Measured on
 * 200,000 end users never analyzed, `metadata.region==us` (a quarter
 * match) was planned as a bitmap scan of the whole company and a sort:
 * 1,463 ms, against 0.3 ms by the createdOn index once analyzed.
 *
 * A table is analyzed when it never was (its row estimate is -1), or when
 * this process wrote more than 50 rows + 10% of its estimated rows to it
 * since it last analyzed it (PostgreSQL's autovacuum_analyze_threshold and
 * _scale_factor). Writes are the store's own count (`writeCount`: only
 * this process writes the embedded store); PGlite keeps no
 * pg_stat_user_tables counts. Answers the tables analyzed.
 *
 * An ANALYZE reads a sample of 30,000 rows; PGlite runs one query at a
 * time, so the lists waiting meanwhile wait for it (about a second at
 * 200,000 rows, measured), once per tenth the table grows.
 */
export function staleStatistics(db: Kysely<any>, store: Store): () => Promise<string[]> {
  const writesAtAnalyze = new Map<CollectionName, number>();
  return async () => {
    const { rows } = await sql<{ relname: string; reltuples: number }>`SELECT relname, reltuples FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`.execute(db);
    const estimated = new Map(rows.map((r) => [r.relname, Number(r.reltuples)]));
    const analyzed: string[] = [];
    for (const name of COLLECTION_NAMES) {
      const table = TABLES[name].name;
      const writes = store[name].writeCount ?? 0;
      const rowCount = estimated.get(table);
      if (rowCount === undefined) continue;
      const stale = rowCount < 0 || writes - (writesAtAnalyze.get(name) ?? 0) > 50 + 0.1 * rowCount;
      if (!stale) continue;
      await sql`ANALYZE ${sql.table(table)}`.execute(db);
      writesAtAnalyze.set(name, writes);
      analyzed.push(table);
    }
    return analyzed;
  };
}

/**
 * Runs `analyze` ANALYZE_FIRST_MS after the store opens and every ANALYZE_EVERY_MS after (never two at
 * once, never keeping the process alive); a failure (the store's thread restarting) waits for the next
 * round. `stop` ends it, before the store closes.
 */
export function analyzeInBackground(analyze: () => Promise<unknown>, firstMs = ANALYZE_FIRST_MS, everyMs = ANALYZE_EVERY_MS): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const round = () => {
    running = analyze()
      .catch(() => {})
      .finally(() => {
        if (!stopped) timer = setTimeout(round, everyMs).unref();
      });
  };
  timer = setTimeout(round, firstMs).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
