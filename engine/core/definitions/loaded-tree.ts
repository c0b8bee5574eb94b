import { buildApp, snapshotOf } from './build-snapshot.ts';
import type { FileChanges } from './changed-files.ts';
import { checkApp, checkAppNames } from './checks/index.ts';
import { groupByApp, type AppFiles } from './definition-tree.ts';
import type { FileAnalysis } from './file-analysis.ts';
import { topName } from './layout.ts';
import type { DefinitionProblem } from './problems.ts';
import type { AppEntry, DefinitionsSnapshot } from './snapshot.ts';
import { contentHash, contentHashLine, type SourceFile } from './source-files.ts';

/**
 * One top-level entry of the definitions folder, with everything learned
 * from it alone: an app folder (`acme/...`), or a stray file at the top.
 * Sorted by path, its files are consecutive among all the folder's files.
 */
interface TopEntry {
  /** Its files' analyses, sorted by path. */
  analyses: FileAnalysis[];
  /** Its files' part of the content hash. */
  hashLines: string;
  /** Its files' own problems, then its app's layout and check problems. */
  problems: DefinitionProblem[];
  /** The app its files make up; null when none of them is placed in an app. */
  app: { files: AppFiles; entry: AppEntry | null } | null;
}

/** What a load left: the hash, the problems of every stage after reading, and the snapshot when there are none. */
export interface TreeState {
  hash: string;
  files: number;
  /** Files parsed and compiled by this load; the others' analyses were reused. */
  analysed: number;
  reused: number;
  /** App folders regrouped and re-checked by this load. */
  appsChecked: number;
  problems: DefinitionProblem[];
  /** Only for a state without problems. */
  snapshot(): DefinitionsSnapshot;
}

/**
 * The definitions folder as the loader last saw it, kept top-level entry by
 * entry so that a change costs what it touches. Grouping, checking and
 * building an app need nothing outside its folder, and an unchanged file
 * keeps its FileAnalysis object (cached by content hash), so an app folder
 * whose analyses are all the same objects as last time keeps its grouping,
 * its problems and its built AppEntry. Only the uniqueness of app ids and
 * slugs spans apps; it runs over every app's app.yaml, one per app.
 *
 * Entries stay in the order of their first file (the order one pass over
 * the sorted files gives), so the hash, the problems and the snapshot are
 * the ones a fresh load of the same folder gives.
 */
export class LoadedTree {
  private analyses = new Map<string, FileAnalysis>();
  private entries = new Map<string, TopEntry>();
  private order: string[] = [];

  /** `analyse`: the per-file stages (parse, validate, compile) of a file not analysed before. */
  constructor(private readonly analyse: (source: SourceFile) => FileAnalysis) {}

  /** All the folder's files, sorted by path (a full load). */
  replaceAll(files: SourceFile[]): TreeState {
    const next = new Map<string, FileAnalysis>();
    const byEntry = new Map<string, FileAnalysis[]>();
    let reused = 0;
    for (const source of files) {
      const analysis = this.analysisOf(source);
      if (analysis === this.analyses.get(source.file)) reused++;
      next.set(source.file, analysis);
      const name = topName(source.file);
      const list = byEntry.get(name);
      if (list) list.push(analysis);
      else byEntry.set(name, [analysis]);
    }
    // Only what the folder holds now is remembered: deleted files and apps are forgotten.
    this.analyses = next;
    const previous = this.entries;
    this.entries = new Map();
    let appsChecked = 0;
    for (const [name, list] of byEntry) {
      const before = previous.get(name);
      if (before && sameObjects(before.analyses, list)) {
        this.entries.set(name, before);
        continue;
      }
      const entry = topEntry(list);
      if (entry.app) appsChecked++;
      this.entries.set(name, entry);
    }
    this.order = [...byEntry.keys()];
    return this.state(files.length - reused, reused, appsChecked);
  }

  /** Some files added or changed (their new content) or deleted (null). */
  applyChanges(changes: FileChanges): TreeState {
    const touched = new Map<string, FileAnalysis[]>();
    let analysed = 0;
    for (const [file, source] of changes) {
      const name = topName(file);
      let list = touched.get(name);
      if (!list) {
        list = [...(this.entries.get(name)?.analyses ?? [])];
        touched.set(name, list);
      }
      const at = indexOf(list, file);
      const present = list[at]?.source.file === file;
      if (!source) {
        if (present) list.splice(at, 1);
        this.analyses.delete(file);
        continue;
      }
      const analysis = this.analysisOf(source);
      if (analysis !== this.analyses.get(file)) analysed++;
      this.analyses.set(file, analysis);
      list.splice(at, present ? 1 : 0, analysis);
    }
    let appsChecked = 0;
    let reorder = false;
    for (const [name, list] of touched) {
      const before = this.entries.get(name);
      if (before && sameObjects(before.analyses, list)) continue;
      reorder ||= !before || list.length === 0;
      if (list.length === 0) {
        this.entries.delete(name);
        continue;
      }
      const entry = topEntry(list);
      if (entry.app) appsChecked++;
      this.entries.set(name, entry);
    }
    if (reorder) {
      const first = (name: string) => this.entries.get(name)!.analyses[0]!.source.file;
      this.order = [...this.entries.keys()].sort((a, b) => (first(a) < first(b) ? -1 : 1));
    }
    return this.state(analysed, this.analyses.size - analysed, appsChecked);
  }

  /** How many files the tree holds an analysis of (0 before the first load). */
  get size(): number {
    return this.analyses.size;
  }

  /** The files of a top-level entry (an app folder, or a stray file at the top) as the tree holds them, sorted by path. */
  sourcesOf(top: string): SourceFile[] {
    return (this.entries.get(top)?.analyses ?? []).map((analysis) => analysis.source);
  }

  /** The top-level entries the tree holds. */
  topNames(): string[] {
    return [...this.entries.keys()];
  }

  /** Whether the tree holds an analysis of this very file (same path, same content). */
  knows(source: SourceFile): boolean {
    return this.analyses.get(source.file)?.source.hash === source.hash;
  }

  private analysisOf(source: SourceFile): FileAnalysis {
    const cached = this.analyses.get(source.file);
    return cached && cached.source.hash === source.hash ? cached : this.analyse(source);
  }

  private state(analysed: number, reused: number, appsChecked: number): TreeState {
    const entries = this.order.map((name) => this.entries.get(name)!);
    const appFiles = entries.map((e) => e.app?.files.app).filter((a): a is FileAnalysis<'app'> => !!a);
    const hash = contentHash(entries.map((e) => e.hashLines));
    const files = this.analyses.size;
    return {
      hash,
      files,
      analysed,
      reused,
      appsChecked,
      problems: [...entries.flatMap((e) => e.problems), ...checkAppNames(appFiles)],
      snapshot: () => snapshotOf(entries.flatMap((e) => (e.app ? [(e.app.entry ??= buildApp(e.app.files))] : [])), hash, files),
    };
  }
}

function topEntry(analyses: FileAnalysis[]): TopEntry {
  const problems = analyses.flatMap((a) => a.problems);
  const placed = analyses.filter((a) => a.place.kind !== 'unexpected');
  let app: TopEntry['app'] = null;
  if (placed.length) {
    const grouped = groupByApp(placed);
    const files = grouped.apps[0]!;
    problems.push(...grouped.problems, ...checkApp(files));
    app = { files, entry: null };
  }
  return { analyses, hashLines: analyses.map((a) => contentHashLine(a.source)).join(''), problems, app };
}

function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** Where `file` is or would go in analyses sorted by path (the order readSourceFiles gives). */
function indexOf(analyses: readonly FileAnalysis[], file: string): number {
  let low = 0;
  let high = analyses.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (analyses[middle]!.source.file < file) low = middle + 1;
    else high = middle;
  }
  return low;
}
