import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../mapping/index.ts';
import { AppFolders } from './app-folders.ts';
import { rereadChanged } from './changed-files.ts';
import { analyseFile, type FileAnalysis } from './file-analysis.ts';
import { sortProblems, type DefinitionProblem } from './problems.ts';
import type { DefinitionsSnapshot } from './snapshot.ts';
import { contentHash, readSourceFiles, type SourceFile } from './source-files.ts';

export type LoadResult =
  | { ok: true; snapshot: DefinitionsSnapshot; hash: string; problems: []; stats: LoadStats }
  | { ok: false; snapshot: null; hash: string; problems: DefinitionProblem[]; stats: LoadStats };

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
 *                                  (per app folder, see app-folders.ts)
 *
 * Every problem of every stage is collected; a snapshot is built only when
 * there are none. One loader keeps its cache across loads, so a one-file
 * change re-parses and re-compiles that file only, and re-checks and
 * rebuilds that file's app only.
 */
export class DefinitionsLoader {
  private cache = new Map<string, FileAnalysis>();
  private readonly folders = new AppFolders();
  /** The files the last loadDirectory read, when it read them all without a problem: the base of an incremental read. */
  private lastRead: { dir: string; files: SourceFile[] } | null = null;

  /** `limits`: the guardrails every compiled expression of these definitions evaluates under. */
  constructor(private readonly limits: MappingLimits = DEFAULT_MAPPING_LIMITS) {}

  /**
   * Loads a folder from disk. With `changed` (the paths a watcher saw added,
   * changed or deleted since the last load of this folder), only those are
   * read again; without it, or when that cannot be trusted (no earlier full
   * read, or see rereadChanged), every file is.
   */
  async loadDirectory(dir: string, changed?: readonly string[]): Promise<LoadResult> {
    const base = changed && this.lastRead?.dir === dir ? this.lastRead.files : null;
    // Until this read finishes, no later load may build on the earlier one.
    this.lastRead = null;
    const reread = base ? await rereadChanged(dir, base, changed!) : null;
    const { files, problems } = reread ? { files: reread.files, problems: [] } : await readSourceFiles(dir);
    this.lastRead = problems.length ? null : { dir, files };
    return this.load(files, problems, { incremental: reread !== null, read: reread ? reread.read : files.length });
  }

  /** Loads files already in memory (tests, tools); `readProblems` are problems of reading them. */
  load(files: SourceFile[], readProblems: DefinitionProblem[] = [], reading = { incremental: false, read: 0 }): LoadResult {
    const hash = contentHash(files);
    const next = new Map<string, FileAnalysis>();
    let reused = 0;
    for (const source of files) {
      const cached = this.cache.get(source.file);
      if (cached && cached.source.hash === source.hash) reused++;
      next.set(source.file, cached && cached.source.hash === source.hash ? cached : analyseFile(source, this.limits));
    }
    // Only what the folder holds now stays cached: deleted files are forgotten.
    this.cache = next;
    const analyses = [...next.values()];
    const apps = this.folders.update(analyses);
    const stats = { files: files.length, ...reading, analysed: files.length - reused, reused, appsChecked: apps.checked };

    const problems = [...readProblems, ...analyses.flatMap((a) => a.problems), ...apps.problems];
    if (problems.length) return { ok: false, snapshot: null, hash, problems: sortProblems(problems), stats };
    return { ok: true, snapshot: apps.snapshot(hash, files.length), hash, problems: [], stats };
  }
}

/** One-off load without a cache kept around: `npm run validate`, tests. */
export function loadDefinitions(dir: string): Promise<LoadResult> {
  return new DefinitionsLoader().loadDirectory(dir);
}
