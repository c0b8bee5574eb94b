import fs from 'node:fs/promises';
import path from 'node:path';
import { isDefinitionPath, sourceFile, type SourceFile } from './source-files.ts';

/**
 * The folder's files after changes to `changed` only (paths as a watcher
 * reports them: absolute, or relative to the working directory like `dir`),
 * starting from the previous read's sorted list. Each changed path is looked
 * at as readSourceFiles would: read when a full listing would hold it, dropped
 * when it is gone or would not be listed (a directory, a file under a
 * symlinked folder, a hidden or test file). Every other file is taken from
 * `previous` without touching the disk.
 *
 * Null when only a full read can be sure: a path outside the folder, or an
 * error other than "not there" (a full read reports it as FILE_UNREADABLE).
 */
export async function rereadChanged(dir: string, previous: readonly SourceFile[], changed: Iterable<string>): Promise<{ files: SourceFile[]; read: number } | null> {
  const files = [...previous];
  let read = 0;
  for (const changedPath of new Set(changed)) {
    const relative = path.relative(dir, changedPath);
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return null;
    const file = relative.split(path.sep).join('/');
    let text: string | null = null;
    if (isDefinitionPath(file)) {
      try {
        text = await readIfListed(dir, file);
      } catch {
        return null;
      }
      if (text !== null) read++;
    }
    const at = indexOf(files, file);
    const present = at < files.length && files[at]!.file === file;
    if (text === null) {
      if (present) files.splice(at, 1);
    } else {
      files.splice(at, present ? 1 : 0, sourceFile(file, text));
    }
  }
  return { files, read };
}

/**
 * The text of `file` when a recursive listing of `dir` would hold it (each
 * folder on the way a real folder, the file a file or a symlink) and reading
 * it finds it, else null. Throws on any other error.
 */
async function readIfListed(dir: string, file: string): Promise<string | null> {
  const parts = file.split('/');
  for (let depth = 1; depth <= parts.length; depth++) {
    const stat = await fs.lstat(path.join(dir, ...parts.slice(0, depth))).catch(notThere);
    if (!stat) return null;
    const listed = depth < parts.length ? stat.isDirectory() : stat.isFile() || stat.isSymbolicLink();
    if (!listed) return null;
  }
  // Deleted between listing and reading (an editor's save in progress): readSourceFiles skips it too.
  return fs.readFile(path.join(dir, file), 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
}

/** Null for a path that is not there (or runs through a file); any other error is rethrown. */
function notThere(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
  throw error;
}

/** Where `file` is or would go in a list sorted by path (the order readSourceFiles gives). */
function indexOf(files: readonly SourceFile[], file: string): number {
  let low = 0;
  let high = files.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (files[middle]!.file < file) low = middle + 1;
    else high = middle;
  }
  return low;
}
