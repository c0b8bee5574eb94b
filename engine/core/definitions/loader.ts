import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../mapping/index.ts';
import type { AnalysisCache } from './analysis-cache.ts';
import { topName } from './layout.ts';
import { rereadChanged } from './changed-files.ts';
import { contentRoot, movedPath } from './content-root.ts';
import { analyseFile, fromSummary, type FileAnalysis, type FileSummary } from './file-analysis.ts';
import { LoadedTree, type TreeState } from './loaded-tree.ts';
import { isWarning, sortProblems, type DefinitionProblem } from './problems.ts';
import type { DefinitionsSnapshot } from './snapshot.ts';
import { defaultLoadThreads } from './load-threads.ts';
import { ANALYSIS_SLICE_MS, AnalysisPool, analyseAside, analyseFiles, PARALLEL_MIN_FILES, type Analysed, type Summarised } from './parallel-analysis.ts';
import { readSourceFiles, type SourceFile } from './source-files.ts';

/**
 * A load: the snapshot, or the problems that refuse it (`problems`); and
 * either way the warnings (WARNING_CODES), which never refuse a load.
 */
export type LoadResult =
  | { ok: true; snapshot: DefinitionsSnapshot; hash: string; problems: []; warnings: DefinitionProblem[]; stats: LoadStats }
  | { ok: false; snapshot: null; hash: string; problems: DefinitionProblem[]; warnings: DefinitionProblem[]; stats: LoadStats };

/**
 * How much work a load did: `read` files were read from disk (only the
 * changed ones when `incremental`), `analysed` files were parsed, validated
 * and checked, `reused` were kept from the loader's own earlier loads (same
 * path and content), `cached` came from the on-disk cache (analysis-cache.ts)
 * without being parsed, and `appsChecked` app folders were regrouped and
 * re-checked.
 */
export interface LoadStats {
  files: number;
  incremental: boolean;
  read: number;
  analysed: number;
  reused: number;
  cached: number;
  appsChecked: number;
}

/**
 * The loading pipeline, in named stages:
 *
 *   read files -> parse YAML (positions kept) -> validate against the schema
 *   -> compile JSONata            (per file, cached by content hash)
 *   -> group by app and version -> semantic checks -> build the snapshot
 *                                  (per app folder, see loaded-tree.ts)
 *
 * Every problem of every stage is collected; a snapshot is built only when
 * there are none. One loader keeps what it learned across loads, so a
 * one-file change re-parses and re-compiles that file only, and re-checks
 * and rebuilds that file's app only.
 */
export class DefinitionsLoader {
  private readonly tree = new LoadedTree((source) => this.ahead.get(source) ?? analyseFile(source, this.limits));
  /** Analyses made ahead of a full load, in parallel-analysis.ts. */
  private ahead = new Map<SourceFile, FileAnalysis>();
  /** The folder the tree holds all of, as last read without a problem: what an incremental load builds on. */
  private readFrom: string | null = null;
  /** The on-disk cache's writes of the loads so far, one after the other. */
  private writes: Promise<void> = Promise.resolve();

  /**
   * `limits`: the guardrails every compiled expression of these definitions
   * evaluates under; `threads`: how many threads a large full load analyses
   * files on (1: this thread alone; 2 or more: that many worker threads,
   * this one gathering their results, see parallel-analysis.ts); `cache`:
   * where analyses are kept across restarts (null: nowhere).
   */
  constructor(
    private readonly limits: MappingLimits = DEFAULT_MAPPING_LIMITS,
    private readonly threads = defaultLoadThreads(),
    private readonly cache: AnalysisCache | null = null,
  ) {}

  /**
   * Resolves when the on-disk cache holds what the loads so far analysed. A
   * load returns before its files are written to the cache (writing them is
   * not on the way to serving its snapshot): a tool that exits, a test, or a
   * gateway stopping waits for this. Never rejects.
   */
  cacheWritten(): Promise<void> {
    return this.writes;
  }

  /**
   * Loads a folder from disk. With `changed` (the paths a watcher saw added,
   * changed or deleted since the last load of this folder), only those are
   * read again; without it, or when that cannot be trusted (no earlier full
   * read of this folder, or see rereadChanged), every file is.
   * `progress`: told of a full load's files analysed so far (a tool's progress line).
   */
  async loadDirectory(dir: string, changed?: readonly string[], progress?: (done: number, total: number) => void): Promise<LoadResult> {
    // A Kubernetes volume is read from the folder its ..data link points at now; an update is a new folder, read whole.
    const root = await contentRoot(dir);
    const incremental = changed !== undefined && this.readFrom === root;
    // Until this load has read what it needs, no later load may build on the earlier one.
    this.readFrom = null;
    const reread = incremental ? await rereadChanged(root, root === dir ? changed : changed.map((file) => movedPath(file, dir, root))) : null;
    if (reread) {
      // Analysed ahead, off the request path: small files in slices, large ones on a worker (parallel-analysis.ts).
      const changedSources = [...reread.changes.values()].filter((source): source is SourceFile => !!source && !this.tree.knows(source));
      const made = new Map<string, { hash: string; summary: FileSummary }>();
      const { analyses, cached } = await this.analyseWithCache(changedSources, made, (misses, summarised) => analyseAside(misses, this.limits, undefined, summarised));
      this.ahead = new Map(analyses.map((analysis) => [analysis.source, analysis]));
      const state = this.tree.applyChanges(reread.changes);
      this.ahead = new Map();
      this.readFrom = root;
      this.scheduleWrite(made, false);
      return result(state, [], { incremental: true, read: reread.read, cached });
    }
    // A cold start of a large tree: the workers load their modules while the files are read.
    // Typed, not narrowed to null: the listing callback sets it.
    let pool = null as AnalysisPool | null;
    const workers = this.threads > 1 ? this.threads : 0;
    const { files, problems } = await readSourceFiles(root, (count) => {
      if (this.tree.size === 0 && count >= PARALLEL_MIN_FILES && workers) pool = new AnalysisPool(workers, this.limits);
    });
    const made = new Map<string, { hash: string; summary: FileSummary }>();
    let cached = 0;
    try {
      // The files new to the tree are taken from the on-disk cache, or analysed ahead, on every core when they are many (a cold start).
      const fresh = files.filter((source) => !this.tree.knows(source));
      let done = files.length - fresh.length;
      const analysed: Analysed | undefined = progress && ((count) => progress((done += count), files.length));
      progress?.(done, files.length);
      const ahead = await this.analyseWithCache(
        fresh,
        made,
        async (misses, summarised) => {
          const many = misses.length >= PARALLEL_MIN_FILES;
          return pool && many
            ? (await pool.analyse(misses, undefined, analysed, summarised)).analyses
            : many && workers
              ? (await analyseFiles(misses, this.limits, workers, undefined, analysed, summarised)).analyses
              : await analyseAside(misses, this.limits, analysed, summarised);
        },
        analysed,
      );
      cached = ahead.cached;
      this.ahead = new Map(ahead.analyses.map((analysis) => [analysis.source, analysis]));
    } finally {
      // Before the tree is built: the workers' heaps are let go first.
      await pool?.close();
    }
    const state = this.tree.replaceAll(files);
    this.ahead = new Map();
    this.readFrom = problems.length ? null : root;
    this.scheduleWrite(made, true);
    return result(state, problems, { incremental: false, read: files.length, cached });
  }

  /**
   * The analyses of `sources`: from the on-disk cache when it has them (no
   * parsing), the others by `analyse`, their summaries kept in `made` for
   * the cache. Without a cache, `analyse` gets them all.
   */
  private async analyseWithCache(
    sources: SourceFile[],
    made: Map<string, { hash: string; summary: FileSummary }>,
    analyse: (misses: SourceFile[], summarised: Summarised | undefined) => Promise<FileAnalysis[]>,
    analysed?: Analysed,
  ): Promise<{ analyses: FileAnalysis[]; cached: number }> {
    if (!this.cache) return { analyses: await analyse(sources, undefined), cached: 0 };
    const hits = sources.length ? await this.cache.lookup(sources) : new Map<SourceFile, FileSummary>();
    const misses = hits.size ? sources.filter((source) => !hits.has(source)) : sources;
    const analyses = misses.length ? await analyse(misses, (source, summary) => made.set(source.file, { hash: source.hash, summary })) : [];
    // Made into analyses as analyseHere makes them, in slices: a reload runs while requests are served.
    let sliceStart = performance.now();
    for (const [source, summary] of hits) {
      if (performance.now() - sliceStart > ANALYSIS_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      analyses.push(fromSummary(source, summary, this.limits));
    }
    analysed?.(hits.size);
    return { analyses, cached: hits.size };
  }

  /**
   * After a load: the packs of the apps it analysed files of are written,
   * with the tree's files of those apps as they are now; after a full load,
   * what no app of the folder uses any more is pruned. Errors are the
   * cache's to report (its onError); the chain never rejects.
   */
  private scheduleWrite(made: Map<string, { hash: string; summary: FileSummary }>, full: boolean): void {
    const cache = this.cache;
    if (!cache) return;
    const tops = new Map<string, SourceFile[]>();
    for (const file of made.keys()) {
      const top = topName(file);
      if (!tops.has(top)) tops.set(top, this.tree.sourcesOf(top));
    }
    const all = full ? this.tree.topNames() : null;
    if (!tops.size && !all) return;
    this.writes = this.writes.then(async () => {
      try {
        await cache.write(tops, made);
        if (all) await cache.prune(all);
      } catch (error) {
        cache.reportError(error, 'writing the definitions cache');
      }
    });
  }

  /** Loads files already in memory (tests, tools); `readProblems` are problems of reading them. */
  load(files: SourceFile[], readProblems: DefinitionProblem[] = []): LoadResult {
    this.readFrom = null;
    const sorted = [...files].sort((a, b) => (a.file < b.file ? -1 : 1));
    return result(this.tree.replaceAll(sorted), readProblems, { incremental: false, read: 0 });
  }
}

function result(state: TreeState, readProblems: DefinitionProblem[], reading: { incremental: boolean; read: number; cached?: number }): LoadResult {
  const { hash, files, analysed, reused, appsChecked } = state;
  const cached = reading.cached ?? 0;
  const stats = { files, incremental: reading.incremental, read: reading.read, analysed: analysed - cached, reused, cached, appsChecked };
  const all = [...readProblems, ...state.problems];
  const problems = all.filter((problem) => !isWarning(problem));
  const warnings = sortProblems(all.filter(isWarning));
  if (problems.length) return { ok: false, snapshot: null, hash, problems: sortProblems(problems), warnings, stats };
  return { ok: true, snapshot: state.snapshot(), hash, problems: [], warnings, stats };
}

/** One-off load without a cache kept around: `npm run validate`, tests. */
export function loadDefinitions(dir: string, progress?: (done: number, total: number) => void): Promise<LoadResult> {
  return new DefinitionsLoader().loadDirectory(dir, undefined, progress);
}
