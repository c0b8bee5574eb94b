import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../mapping/index.ts';
import { rereadChanged } from './changed-files.ts';
import { contentRoot, movedPath } from './content-root.ts';
import { analyseFile, type FileAnalysis } from './file-analysis.ts';
import { LoadedTree, type TreeState } from './loaded-tree.ts';
import { isWarning, sortProblems, type DefinitionProblem } from './problems.ts';
import type { DefinitionsSnapshot } from './snapshot.ts';
import { defaultLoadThreads } from './load-threads.ts';
import { AnalysisPool, analyseAside, analyseFiles, PARALLEL_MIN_FILES, type Analysed } from './parallel-analysis.ts';
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
 * changed ones when `incremental`), `analysed` files were parsed and
 * compiled, `reused` came from the cache, and `appsChecked` app folders were
 * regrouped and re-checked.
 */
export interface LoadStats {
  files: number;
  incremental: boolean;
  read: number;
  analysed: number;
  reused: number;
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

  /**
   * `limits`: the guardrails every compiled expression of these definitions
   * evaluates under; `threads`: how many threads a large full load analyses
   * files on (1: this thread alone; 2 or more: that many worker threads,
   * this one gathering their results, see parallel-analysis.ts).
   */
  constructor(
    private readonly limits: MappingLimits = DEFAULT_MAPPING_LIMITS,
    private readonly threads = defaultLoadThreads(),
  ) {}

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
      this.ahead = new Map((await analyseAside(changedSources, this.limits)).map((analysis) => [analysis.source, analysis]));
      const state = this.tree.applyChanges(reread.changes);
      this.ahead = new Map();
      this.readFrom = root;
      return result(state, [], { incremental: true, read: reread.read });
    }
    // A cold start of a large tree: the workers load their modules while the files are read.
    // Typed, not narrowed to null: the listing callback sets it.
    let pool = null as AnalysisPool | null;
    const workers = this.threads > 1 ? this.threads : 0;
    const { files, problems } = await readSourceFiles(root, (count) => {
      if (this.tree.size === 0 && count >= PARALLEL_MIN_FILES && workers) pool = new AnalysisPool(workers, this.limits);
    });
    try {
      // The files new to the tree are analysed ahead, on every core when they are many (a cold start).
      const fresh = files.filter((source) => !this.tree.knows(source));
      const many = fresh.length >= PARALLEL_MIN_FILES;
      let done = files.length - fresh.length;
      const analysed: Analysed | undefined = progress && ((count) => progress((done += count), files.length));
      progress?.(done, files.length);
      const analyses =
        pool && many
          ? (await pool.analyse(fresh, undefined, analysed)).analyses
          : many && workers
            ? (await analyseFiles(fresh, this.limits, workers, undefined, analysed)).analyses
            : await analyseAside(fresh, this.limits, analysed);
      this.ahead = new Map(analyses.map((analysis) => [analysis.source, analysis]));
    } finally {
      // Before the tree is built: the workers' heaps are let go first.
      await pool?.close();
    }
    const state = this.tree.replaceAll(files);
    this.ahead = new Map();
    this.readFrom = problems.length ? null : root;
    return result(state, problems, { incremental: false, read: files.length });
  }

  /** Loads files already in memory (tests, tools); `readProblems` are problems of reading them. */
  load(files: SourceFile[], readProblems: DefinitionProblem[] = []): LoadResult {
    this.readFrom = null;
    const sorted = [...files].sort((a, b) => (a.file < b.file ? -1 : 1));
    return result(this.tree.replaceAll(sorted), readProblems, { incremental: false, read: 0 });
  }
}

function result(state: TreeState, readProblems: DefinitionProblem[], reading: { incremental: boolean; read: number }): LoadResult {
  const { hash, files, analysed, reused, appsChecked } = state;
  const stats = { files, ...reading, analysed, reused, appsChecked };
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
