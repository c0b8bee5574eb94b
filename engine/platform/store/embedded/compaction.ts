/**
 * NeDB appends every insert, update and delete to its file as one more line
 * and only rewrites the file (one line per live record) when told to: on load
 * (`loadDatabaseAsync` ends with a rewrite, so a start compacts) and on
 * `compactDatafileAsync`. Without a schedule, 5,000 updates of one record
 * leave 5,001 lines until the next start.
 *
 * The schedule here runs NeDB's own compaction (`compactDatafileAsync`: it
 * goes through NeDB's executor, so no write interleaves with the rewrite, and
 * it writes `<file>~`, fsyncs it and renames it over the file, so a kill
 * during it leaves the old file whole). Every STORE_COMPACTION_INTERVAL_MS it
 * looks at each file and rewrites those whose stale lines (earlier versions
 * of updated records, deleted records) have reached their live records: the
 * file is at least half stale. Inserts alone leave nothing to drop. A rewrite holds
 * the event loop for most of its time (NeDB serializes every record in one
 * go: seconds at 100,000 records, docs/benchmarks.md), so rewriting in
 * proportion to what went stale keeps that cost per write constant and a
 * file at most about twice its live size; a fixed timer alone would stall a
 * large store at every tick for a handful of renewals, and rewrite files that
 * did not change.
 *
 * Not `setAutocompactionInterval`: it rewrites every file every time, and it
 * calls `compactDatafile()` without a callback, so a failed rewrite (a full
 * disk) is an unhandled rejection that ends the process. Here it is a warning
 * and the file stays longer until a later tick.
 */

/** The default STORE_COMPACTION_INTERVAL_MS: how soon after a file doubles it is rewritten (a tick that rewrites nothing costs nothing). */
export const DEFAULT_COMPACTION_INTERVAL_MS = 60_000;

export interface Compactable {
  readonly name: string;
  /** Lines in the file a rewrite would drop: earlier versions of updated records, deleted records and their tombstones. */
  readonly staleLines: number;
  /** Records the file holds once rewritten. */
  readonly liveRecords: number;
  /** Rewrites the file with one line per live record; resolves with the records written. */
  compact(): Promise<number>;
}

export interface CompactionReport {
  collection: string;
  /** Lines the rewrite dropped. */
  staleLines: number;
  records: number;
  durationMs: number;
}

export interface CompactionEvents {
  onCompacted?(report: CompactionReport): void;
  onFailed?(collection: string, error: unknown): void;
}

export class CompactionSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<CompactionReport[]> | null = null;

  constructor(private readonly collections: readonly Compactable[], private readonly events: CompactionEvents = {}) {}

  /** Every `intervalMs` (0: never). The timer does not keep the process alive. */
  start(intervalMs: number): void {
    this.stop();
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => void this.compactGrown(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Compacts, one after the other, the files that are at least half stale lines
   * (`all`: every file with a stale line, as a close does); a run already under way is joined, not doubled.
   */
  compactGrown(all = false): Promise<CompactionReport[]> {
    this.running ??= this.runOnce(all).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Waits for a compaction under way (close: the files are then left whole and the process may end). */
  async settled(): Promise<void> {
    await this.running;
  }

  private async runOnce(all: boolean): Promise<CompactionReport[]> {
    const reports: CompactionReport[] = [];
    for (const collection of this.collections) {
      const staleLines = collection.staleLines;
      if (staleLines === 0 || (!all && staleLines < collection.liveRecords)) continue;
      const started = performance.now();
      try {
        const records = await collection.compact();
        const report = { collection: collection.name, staleLines, records, durationMs: Math.round(performance.now() - started) };
        reports.push(report);
        this.events.onCompacted?.(report);
      } catch (error) {
        this.events.onFailed?.(collection.name, error);
      }
    }
    return reports;
  }
}
