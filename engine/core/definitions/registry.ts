import type { Logger } from '../../platform/log/logger.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { ReadinessCheck } from '../../platform/health/readiness.ts';
import { DefinitionsLoader, type LoadResult } from './loader.ts';
import { failureProblem, formatProblem, type DefinitionProblem } from './problems.ts';
import type { DefinitionsSnapshot } from './snapshot.ts';

/**
 * The most problems the status route and the log line of a rejected load
 * show (each file lists at most MAX_PROBLEMS_PER_FILE, each message at most
 * MAX_MESSAGE_CHARS, so the answer stays under ~150 KB); `errorCount` says
 * how many there were.
 */
export const STATUS_MAX_PROBLEMS = 200;

/** What GET /v2/definitions/status shows. */
export interface DefinitionsStatus {
  /** The live snapshot's content hash; null until one loads. */
  hash: string | null;
  loadedAt: string | null;
  appCount: number;
  /** What the live snapshot serves, app by app: which versions exist and which is published. */
  apps: { id: string; slug: string; published: number | null; versions: number[]; draft: boolean }[];
  /** The problems of the latest load attempt, the first STATUS_MAX_PROBLEMS of them; empty when it succeeded. */
  errors: DefinitionProblem[];
  /** How many problems the latest load attempt had in all. */
  errorCount: number;
  /** The warnings of the latest load attempt (WARNING_CODES: they do not refuse a load), the first STATUS_MAX_PROBLEMS of them. */
  warnings: DefinitionProblem[];
  warningCount: number;
  lastAttempt: { at: string; reason: string; ok: boolean; hash: string } | null;
}

/** A load not started yet, with the paths it is to read again (null: every file). */
interface QueuedLoad {
  run: Promise<LoadResult>;
  changed: Set<string> | null;
}

/**
 * The live definitions of a running gateway. A request calls `current()` once
 * and uses that object to the end; `reload()` builds the next snapshot away
 * from the request path and swaps the reference in one assignment, so there
 * is never a half-loaded state to see. A load with problems keeps the last
 * good snapshot serving and records its problems for the status route.
 *
 *   const snapshot = registry.current();         // NOT_READY (503) until a load succeeds
 *   const version = resolveAppVersion(snapshot, { slug }, 'published');
 */
export class DefinitionsRegistry {
  private live: DefinitionsSnapshot | null = null;
  private errors: DefinitionProblem[] = [];
  private warnings: DefinitionProblem[] = [];
  private lastAttempt: DefinitionsStatus['lastAttempt'] = null;
  /** The load waiting for the running one. */
  private queued: QueuedLoad | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  /** Told the result of every load attempt (the metrics count them). */
  onLoad: ((ok: boolean) => void) | null = null;
  /** Told each time another snapshot goes live (a load whose hash differs from the live one's). */
  private readonly swapListeners = new Set<(snapshot: DefinitionsSnapshot) => void>();

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    private readonly loader: Pick<DefinitionsLoader, 'loadDirectory'> = new DefinitionsLoader(),
  ) {}

  /** The live snapshot for a request; NOT_READY (503) before the first successful load. */
  current(): DefinitionsSnapshot {
    if (this.live) return this.live;
    throw GatewayError.of('NOT_READY', `app definitions are not loaded yet: ${this.notReadyReason()}`);
  }

  /**
   * Loads the folder again: only the `changed` paths (what the watcher saw
   * added, changed or deleted) when given, else every file. Loads never
   * overlap: a reload asked for while one runs is queued, and further asks
   * join that queued one (a burst of saves is one extra load, not many); the
   * queued load reads the changed paths of every ask it joined, or every
   * file if any ask did not say what changed.
   */
  reload(reason: string, changed?: readonly string[]): Promise<LoadResult> {
    if (this.queued) {
      const queued = this.queued;
      if (queued.changed && changed) for (const file of changed) queued.changed.add(file);
      else queued.changed = null;
      return queued.run;
    }
    // Asks that join it change `queued.changed` until it starts.
    let queued: QueuedLoad;
    const run = this.tail.then(() => {
      this.queued = null;
      return this.loadOnce(reason, queued.changed);
    });
    queued = { run, changed: changed ? new Set(changed) : null };
    this.queued = queued;
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Calls `listener` each time a load puts another snapshot live (not for a
   * load that finds the same definitions); answers the function that stops it.
   * A listener that throws is logged, and the others are still told.
   */
  onSnapshot(listener: (snapshot: DefinitionsSnapshot) => void): () => void {
    this.swapListeners.add(listener);
    return () => this.swapListeners.delete(listener);
  }

  status(): DefinitionsStatus {
    return {
      hash: this.live?.hash ?? null,
      loadedAt: this.live?.loadedAt.toISOString() ?? null,
      appCount: this.live?.apps.size ?? 0,
      apps: [...(this.live?.apps.values() ?? [])].map((app) => ({
        id: app.id,
        slug: app.slug,
        published: app.published ?? null,
        versions: [...app.versions.keys()],
        draft: app.draft !== undefined,
      })),
      errors: this.errors.slice(0, STATUS_MAX_PROBLEMS),
      errorCount: this.errors.length,
      warnings: this.warnings.slice(0, STATUS_MAX_PROBLEMS),
      warningCount: this.warnings.length,
      lastAttempt: this.lastAttempt,
    };
  }

  /** GET /ready: not ready until a snapshot is loaded. */
  readinessCheck(): ReadinessCheck {
    return { name: 'definitions', check: async () => (this.live ? null : this.notReadyReason()) };
  }

  private async loadOnce(reason: string, changed: ReadonlySet<string> | null): Promise<LoadResult> {
    const started = Date.now();
    let result: LoadResult;
    try {
      result = await this.loader.loadDirectory(this.dir, changed ? [...changed] : undefined);
    } catch (error) {
      // Never a rejection: the watcher and SIGHUP drop what reload() returns, so a thrown load was lost
      // unlogged, the status went on saying ok, and the start failed. It is a failed attempt like any other.
      this.logger.error({ reason, err: error }, 'definitions could not be loaded (keeping the live snapshot, if any)');
      const problems = [failureProblem('.', error, 'the definitions could not be loaded')];
      const stats = { files: 0, incremental: false, read: 0, analysed: 0, reused: 0, cached: 0, appsChecked: 0 };
      result = { ok: false, snapshot: null, hash: '', problems, warnings: [], stats };
    }
    this.lastAttempt = { at: new Date().toISOString(), reason, ok: result.ok, hash: result.hash };
    this.onLoad?.(result.ok);
    const ms = Date.now() - started;
    this.warnings = result.warnings;
    if (result.warnings.length) {
      const shown = this.listed(result.warnings);
      this.logger.warn({ reason, hash: result.hash, warnings: result.warnings.length }, `definitions have warnings (they load; npm run validate lists them):\n${shown.join('\n')}`);
    }
    if (result.ok) {
      const previous = this.live?.hash;
      this.live = result.snapshot;
      this.errors = [];
      this.logger.info({ reason, hash: result.hash, apps: result.snapshot.apps.size, ...result.stats, ms, changed: previous !== result.hash }, 'definitions loaded');
      if (previous !== result.hash) this.tellSwap(result.snapshot);
    } else {
      this.errors = result.problems;
      const keeping = this.live ? `keeping snapshot ${this.live.hash.slice(0, 12)}` : 'no snapshot is loaded';
      const shown = this.listed(result.problems);
      this.logger.error({ reason, hash: result.hash, problems: result.problems.length, ...result.stats, ms }, `definitions rejected (${keeping}):\n${shown.join('\n')}`);
    }
    return result;
  }

  private tellSwap(snapshot: DefinitionsSnapshot): void {
    for (const listener of this.swapListeners) {
      try {
        listener(snapshot);
      } catch (error) {
        this.logger.error({ err: error }, 'a listener of definition reloads failed');
      }
    }
  }

  /** At most STATUS_MAX_PROBLEMS lines of `<dir>/<file>:<line>:<column> <CODE> <message>`, then how many more. */
  private listed(problems: DefinitionProblem[]): string[] {
    const shown = problems.slice(0, STATUS_MAX_PROBLEMS).map((p) => formatProblem(p, (f) => `${this.dir}/${f}`));
    if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more (npm run validate lists them all)`);
    return shown;
  }

  private notReadyReason(): string {
    if (!this.lastAttempt) return 'the first load has not finished';
    const count = this.errors.length;
    // Said to anyone who asks GET /ready: the count, never the folder's path on the host (the status route, behind a key, and the log say more).
    return `${count} problem${count === 1 ? '' : 's'} in the app definitions (see GET /v2/definitions/status or npm run validate)`;
  }
}
