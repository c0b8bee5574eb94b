import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isActionTestFile } from './layout.ts';
import type { DefinitionProblem } from './problems.ts';

/** One YAML file of a definitions folder, read once per load. */
export interface SourceFile {
  /** Relative to the definitions folder, forward slashes: github/versions/1/api.yaml. */
  file: string;
  text: string;
  /** sha256 of the text: the cache key of every per-file stage. */
  hash: string;
}

export interface ReadOutcome {
  files: SourceFile[];
  problems: DefinitionProblem[];
}

export const YAML_FILE = /\.ya?ml$/;

/** How long readSourceFiles reads before it lets the event loop turn (requests keep being served during a reload). */
const READ_SLICE_MS = 8;

/**
 * Stage 1: every *.yaml / *.yml file under `dir`, sorted by path. Hidden
 * files and folders (.git, editor swap files) are skipped, and so are
 * actions' test cases (actions/<action>.test.yaml); other files (README.md,
 * images) are allowed and ignored.
 *
 * Files are read synchronously, in slices of a few milliseconds with a turn
 * of the event loop between them: a definition file is small, and
 * `readFileSync` reads one in ~20 µs where the promise API, with a thread
 * pool round trip per open, fstat, read and close, took 10x longer (33,000
 * files: 5.3 s). One file open at a time also means no EMFILE on a large tree.
 *
 * `listed` is told how many files there are before they are read.
 */
export async function readSourceFiles(dir: string, listed?: (count: number) => void): Promise<ReadOutcome> {
  const stat = await fs.promises.stat(dir).catch(() => null);
  if (!stat?.isDirectory()) {
    return { files: [], problems: [{ file: '.', line: 1, column: 1, code: 'DEFINITIONS_DIR_MISSING', message: `${dir} is not a folder` }] };
  }
  const names = (await listFiles(dir)).filter(isDefinitionPath).sort();
  listed?.(names.length);
  const files: SourceFile[] = [];
  const problems: DefinitionProblem[] = [];
  let sliceStart = performance.now();
  for (const file of names) {
    if (performance.now() - sliceStart > READ_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    try {
      files.push(sourceFile(file, fs.readFileSync(path.join(dir, file), 'utf8')));
    } catch (error) {
      // A file deleted between listing and reading is a normal race while an editor saves.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      problems.push({ file, line: 1, column: 1, code: 'FILE_UNREADABLE', message: (error as Error).message });
    }
  }
  return { files, problems };
}

/**
 * Every file (or symlink) under `dir`, relative, forward slashes: one
 * `readdirSync` per folder, in slices like the reading, its paths made by
 * joining names. On the 33,000-file tree (4,000 folders) the promise API's
 * recursive readdir and path.relative took 420-700 ms of CPU, this walk
 * 150-340 ms (docs/benchmarks.md). A folder removed while it is walked is
 * skipped, as a file removed before it is read.
 */
async function listFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  const folders = [''];
  let sliceStart = performance.now();
  while (folders.length) {
    if (performance.now() - sliceStart > READ_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const folder = folders.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder ? path.join(dir, folder) : dir, { withFileTypes: true });
    } catch (error) {
      if (folder && (error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    for (const entry of entries) {
      const name = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) folders.push(name);
      else if (entry.isFile() || entry.isSymbolicLink()) names.push(name);
    }
  }
  return names;
}

/** Whether a file at this relative path (forward slashes) is one readSourceFiles reads. */
export function isDefinitionPath(file: string): boolean {
  return (
    YAML_FILE.test(file) &&
    !file.split('/').some((part) => part.startsWith('.')) &&
    // An action's offline test cases sit beside it but are not definitions.
    !isActionTestFile(file)
  );
}

export function sourceFile(file: string, text: string): SourceFile {
  return { file, text, hash: createHash('sha256').update(text).digest('hex') };
}

/**
 * One hash for a whole folder: changes when any file is added, removed,
 * renamed or edited. It hashes every file's contentHashLine in path order;
 * `lines` may hold one line per file, or the lines of consecutive files
 * joined (loaded-tree.ts keeps one string per app folder).
 */
export function contentHash(lines: Iterable<string>): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line);
  return hash.digest('hex');
}

export function contentHashLine(file: SourceFile): string {
  return `${file.file}\0${file.hash}\n`;
}
