import type { Logger } from '../log/logger.ts';
import type { StoreEvents } from './open-store.ts';

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
  };
}
