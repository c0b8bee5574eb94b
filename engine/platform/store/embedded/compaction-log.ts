import type { Logger } from '../../log/logger.ts';
import type { CompactionEvents } from './compaction.ts';

/** What the gateway logs of the compaction schedule: each rewrite with its time (the event loop waits on part of it), and a failure as a warning. */
export function compactionLogging(logger: Logger): CompactionEvents {
  return {
    onCompacted: (report) => logger.info(report, 'store file compacted'),
    onFailed: (collection, error) =>
      logger.warn({ collection, err: error }, 'store file compaction failed: the file keeps its appended lines until a later compaction succeeds'),
  };
}
