import { buildApp, snapshotOf } from './build-snapshot.ts';
import { checkApp, checkAppNames } from './checks/index.ts';
import { groupByApp, type AppFiles } from './definition-tree.ts';
import type { FileAnalysis } from './file-analysis.ts';
import type { DefinitionProblem } from './problems.ts';
import type { AppEntry, DefinitionsSnapshot } from './snapshot.ts';

/** One app folder as a load left it. */
interface AppFolder {
  /** Its files' analyses in path order: the very objects the loader's cache handed over. */
  analyses: FileAnalysis[];
  files: AppFiles;
  /** Its layout problems and the problems of its own checks. */
  problems: DefinitionProblem[];
  /** Built the first time a load without problems needs it, then reused while the folder is unchanged. */
  entry: AppEntry | null;
}

export interface AppFoldersUpdate {
  /** Every app folder's layout and check problems, and those across apps. */
  problems: DefinitionProblem[];
  /** App folders regrouped and re-checked by this update (the others were reused). */
  checked: number;
  /** The snapshot of these apps; only for an update without problems in any file. */
  snapshot(hash: string, fileCount: number): DefinitionsSnapshot;
}

/**
 * Stages 4 and 5 app folder by app folder, remembered across loads. Grouping,
 * checking and building an app need nothing outside its folder, and the
 * loader's cache hands over the same FileAnalysis object for a file that did
 * not change, so an app whose analyses are all the same objects as last time
 * keeps its grouping, its problems and its built entry. Only the uniqueness of
 * app ids and slugs spans apps; it runs over every app's app.yaml each time.
 *
 * Apps come in the order their first file sorts in (as one groupByApp over
 * the whole folder gives), so the snapshot is the one a fresh load builds.
 */
export class AppFolders {
  private folders = new Map<string, AppFolder>();

  /** `analyses`: every file of the folder, in path order. */
  update(analyses: FileAnalysis[]): AppFoldersUpdate {
    const byFolder = new Map<string, FileAnalysis[]>();
    for (const analysis of analyses) {
      if (analysis.place.kind === 'unexpected') continue;
      const folder = analysis.place.appFolder;
      const list = byFolder.get(folder);
      if (list) list.push(analysis);
      else byFolder.set(folder, [analysis]);
    }
    const next = new Map<string, AppFolder>();
    let checked = 0;
    for (const [name, list] of byFolder) {
      const previous = this.folders.get(name);
      if (previous && sameObjects(previous.analyses, list)) {
        next.set(name, previous);
        continue;
      }
      checked++;
      const { apps, problems } = groupByApp(list);
      const files = apps[0]!;
      next.set(name, { analyses: list, files, problems: [...problems, ...checkApp(files)], entry: null });
    }
    // Only what the folder holds now is remembered: deleted apps are forgotten.
    this.folders = next;

    const folders = [...next.values()];
    const appFiles = folders.map((f) => f.files.app).filter((a): a is FileAnalysis<'app'> => a !== null);
    return {
      problems: [...folders.flatMap((f) => f.problems), ...checkAppNames(appFiles)],
      checked,
      snapshot: (hash, fileCount) => snapshotOf(folders.map((f) => (f.entry ??= buildApp(f.files))), hash, fileCount),
    };
  }
}

function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
