import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../mapping/index.ts';
import { buildSnapshot } from './build-snapshot.ts';
import { checkDefinitions } from './checks/index.ts';
import { groupByApp } from './definition-tree.ts';
import { analyseFile, type FileAnalysis } from './file-analysis.ts';
import { sortProblems, type DefinitionProblem } from './problems.ts';
import type { DefinitionsSnapshot } from './snapshot.ts';
import { analyseFiles } from './parallel-analysis.ts';
import { contentHash, readSourceFiles, type SourceFile } from './source-files.ts';

export type LoadResult =
  | { ok: true; snapshot: DefinitionsSnapshot; hash: string; problems: []; stats: LoadStats }
  | { ok: false; snapshot: null; hash: string; problems: DefinitionProblem[]; stats: LoadStats };

/** How much work a load did: `analysed` files were parsed and compiled, `reused` came from the cache. */
export interface LoadStats {
  files: number;
  analysed: number;
  reused: number;
}

/**
 * The loading pipeline, in named stages:
 *
 *   read files -> parse YAML (positions kept) -> validate against the schema
 *   -> compile JSONata            (per file, cached by content hash)
 *   -> group by app and version -> semantic checks -> build the snapshot
 *
 * Every problem of every stage is collected; a snapshot is built only when
 * there are none. One loader keeps its cache across loads, so a one-file
 * change re-parses and re-compiles that file only.
 */
export class DefinitionsLoader {
  private cache = new Map<string, FileAnalysis>();

  /** `limits`: the guardrails every compiled expression of these definitions evaluates under. */
  constructor(private readonly limits: MappingLimits = DEFAULT_MAPPING_LIMITS) {}

  /** Loads a folder from disk; the files new to the cache are analysed on every core when they are many. */
  async loadDirectory(dir: string): Promise<LoadResult> {
    const { files, problems } = await readSourceFiles(dir);
    const fresh = files.filter((source) => this.cache.get(source.file)?.source.hash !== source.hash);
    const { analyses } = await analyseFiles(fresh, this.limits);
    return this.load(files, problems, new Map(analyses.map((analysis) => [analysis.source, analysis])));
  }

  /**
   * Loads files already in memory (tests, tools); `readProblems` are problems
   * of reading them, `analysed` analyses already made of some of them.
   */
  load(files: SourceFile[], readProblems: DefinitionProblem[] = [], analysed: ReadonlyMap<SourceFile, FileAnalysis> = new Map()): LoadResult {
    const hash = contentHash(files);
    const next = new Map<string, FileAnalysis>();
    let reused = 0;
    for (const source of files) {
      const cached = this.cache.get(source.file);
      if (cached && cached.source.hash === source.hash) reused++;
      next.set(source.file, cached && cached.source.hash === source.hash ? cached : (analysed.get(source) ?? analyseFile(source, this.limits)));
    }
    // Only what the folder holds now stays cached: deleted files are forgotten.
    this.cache = next;
    const analyses = [...next.values()];
    const stats = { files: files.length, analysed: files.length - reused, reused };

    const { apps, problems: layoutProblems } = groupByApp(analyses);
    const problems = [...readProblems, ...analyses.flatMap((a) => a.problems), ...layoutProblems, ...checkDefinitions(apps)];
    if (problems.length) return { ok: false, snapshot: null, hash, problems: sortProblems(problems), stats };
    return { ok: true, snapshot: buildSnapshot(apps, hash, files.length), hash, problems: [], stats };
  }
}

/** One-off load without a cache kept around: `npm run validate`, tests. */
export function loadDefinitions(dir: string): Promise<LoadResult> {
  return new DefinitionsLoader().loadDirectory(dir);
}
