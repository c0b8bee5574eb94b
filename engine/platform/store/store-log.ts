import type { Logger } from '../log/logger.ts';
import type { StoreEvents } from './open-store.ts';
import { RESTART_AFTER_MS } from './sql/pglite-thread.ts';

/** What the gateway logs of opening its store: migrations run, the NeDB files imported (and where they are kept), a dropped idle connection. */
export function storeLogging(logger: Logger): StoreEvents {
  return {
    onMigrated: (names) => logger.info({ migrations: names }, `store schema migrated: ${names.join(', ')}`),
    onLegacyImported: (report) =>
      logger.warn(
        { from: report.from, keptAt: report.keptAt, records: report.counts },
        report.counts
          ? `imported the embedded store of an earlier release (NeDB files in ${report.from}) into the embedded database; the old files are kept at ${report.keptAt}: delete them once you are satisfied`
          : `the NeDB files in ${report.from} had been imported by an earlier start; moved them to ${report.keptAt}: delete them once you are satisfied`,
      ),
    onUnreachable: (error, attempt, retryInMs) =>
      logger.warn({ attempt, retryInMs }, `store: ${error.message.replace(/; try again shortly$/, '')}; the gateway waits for it and tries again in ${retryInMs} ms (attempt ${attempt})`),
    onIdleError: (error) => logger.warn({ err: error }, 'store: an idle PostgreSQL connection failed; the next query opens a new one'),
    onEmbeddedCreated: (how, dataDir) =>
      how === 'initdb'
        ? logger.warn(
            { how, dataDir },
            `store: created the embedded database in ${dataDir}/pglite with initdb, which needs about 1 GB of memory for about 10 s: the build's empty database (dist/pglite-cluster, made by \`npm run build\` for this PGlite) was not there, or could not be copied`,
          )
        : logger.info({ how, dataDir }, `store: created the embedded database in ${dataDir}/pglite, copied from ${how === 'cluster' ? "the build's empty database (dist/pglite-cluster)" : 'PGLITE_TEMPLATE_DIR'}`),
    onEmbeddedStopped: (reason) =>
      logger.error(
        { reason },
        `store: the embedded database's thread stopped (${reason}); requests that need the store answer 503 STORE_UNAVAILABLE, and the first one after ${RESTART_AFTER_MS / 1000} s starts it again`,
      ),
  };
}
