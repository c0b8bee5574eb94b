import fs from 'node:fs/promises';
import path from 'node:path';
import { isDefinitionPath, readDefinitionFile, sourceFile, type SourceFile } from './source-files.ts';

/** What a set of changed paths holds now, by file (relative, forward slashes): its content, or null when it is gone. */
export type FileChanges = Map<string, SourceFile | null>;

/**
 * Reads the `changed` paths (as a watcher reports them: absolute, or
 * relative to the working directory like `dir`) as readSourceFiles would see
 * them: a file a full listing would hold is read; one that is gone or would
 * not be listed (a directory, a file under a symlinked folder) is null;
 * paths readSourceFiles never reads (hidden, test cases, not YAML) are left
 * out. `read` counts the files read.
 *
 * Null when only a full read can be sure: a path outside the folder, or an
 * error other than "not there" (a full read reports it as FILE_UNREADABLE).
 */
export async function rereadChanged(dir: string, changed: Iterable<string>): Promise<{ changes: FileChanges; read: number } | null> {
  const changes: FileChanges = new Map();
  let read = 0;
  for (const changedPath of new Set(changed)) {
    const relative = path.relative(dir, changedPath);
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return null;
    const file = relative.split(path.sep).join('/');
    if (!isDefinitionPath(file)) continue;
    let text: string | null;
    try {
      text = await readIfListed(dir, file);
    } catch {
      return null;
    }
    if (text !== null) read++;
    changes.set(file, text === null ? null : sourceFile(file, text));
  }
  return { changes, read };
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
  const read = readDefinitionFile(dir, file);
  if (read === null) return null;
  // Not a regular file, too large, not UTF-8: a full read reports its FILE_UNREADABLE problem.
  if ('problem' in read) throw new Error(read.problem.message);
  return read.text;
}

/** Null for a path that is not there (or runs through a file); any other error is rethrown. */
function notThere(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
  throw error;
}
