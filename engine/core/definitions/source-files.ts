import { isUtf8 } from 'node:buffer';
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
    const read = readDefinitionFile(dir, file);
    // A file deleted between listing and reading is a normal race while an editor saves.
    if (read === null) continue;
    if ('problem' in read) problems.push(read.problem);
    else files.push(sourceFile(file, read.text));
  }
  return { files, problems };
}

/**
 * The most a definition file may hold. The largest bundled one is under
 * 40 KB (and a Kubernetes ConfigMap holds at most 1 MB); a file of hundreds of megabytes took the whole gateway down (its
 * analysis worker ran out of memory, and with it the process).
 */
export const MAX_DEFINITION_FILE_BYTES = 1024 * 1024;

/**
 * The text of one listed file, or its FILE_UNREADABLE problem: a file that
 * is not a regular file (a symlink to a FIFO, a device, a socket: reading one
 * could wait forever, or never end), one larger than
 * MAX_DEFINITION_FILE_BYTES, one that is not UTF-8 text (Latin-1, UTF-16:
 * read as UTF-8 its bytes would silently become U+FFFD, or nothing the
 * parser can read), or any other read error. Null when the file is gone.
 *
 * Opened without blocking (a FIFO's open waits for a writer otherwise) and
 * checked on the descriptor, so what is checked is what is read.
 */
export function readDefinitionFile(dir: string, file: string): { text: string } | { problem: DefinitionProblem } | null {
  const unreadable = (message: string, line = 1, column = 1) => ({ problem: { file, line, column, code: 'FILE_UNREADABLE' as const, message } });
  let fd: number;
  try {
    fd = fs.openSync(path.join(dir, file), fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return unreadable((error as Error).message);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return unreadable(`not a regular file (${fileKind(stat)}): a definition file must be a file of YAML text`);
    const limit = MAX_DEFINITION_FILE_BYTES;
    const tooLarge = (size: string) => ({ problem: tooLargeProblem(file, size) });
    if (stat.size > limit) return tooLarge(`${stat.size} bytes`);
    // Read to the end, not to the size fstat gave: a file still being written may have grown since.
    let buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > limit) return tooLarge(`more than ${limit} bytes`);
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return definitionText(file, buffer.subarray(0, length));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return unreadable((error as Error).message);
  } finally {
    fs.closeSync(fd);
  }
}

/** FILE_UNREADABLE for a file of `size` (`210000000 bytes`, `more than ...`): larger than a definition file may be. */
export function tooLargeProblem(file: string, size: string): DefinitionProblem {
  const limit = MAX_DEFINITION_FILE_BYTES;
  return { file, line: 1, column: 1, code: 'FILE_UNREADABLE', message: `the file is ${size}; a definition file may have at most ${limit} bytes (${limit / 1024 / 1024} MB): split it, or shorten it` };
}

/** The text of a definition file's bytes, or its FILE_UNREADABLE problem at the first byte that is not UTF-8. */
export function definitionText(file: string, bytes: Buffer): { text: string } | { problem: DefinitionProblem } {
  if (bytes.length > MAX_DEFINITION_FILE_BYTES) return { problem: tooLargeProblem(file, `${bytes.length} bytes`) };
  const bad = notUtf8(bytes);
  if (!bad) return { text: bytes.toString('utf8') };
  return { problem: { file, line: bad.line, column: bad.column, code: 'FILE_UNREADABLE', message: notUtf8Message(bad) } };
}

/** Where bytes stop being UTF-8 text: the first byte that is not, at `offset`, on `line` and `column` (1-based). */
export interface NotUtf8 {
  offset: number;
  line: number;
  column: number;
  byte: number;
  /** The bytes start with a UTF-16 byte order mark. */
  utf16: boolean;
}

/** Where `bytes` stop being UTF-8 text, or undefined when they are UTF-8 (the whole check is one native call; the search for the byte runs only then). */
export function notUtf8(bytes: Buffer): NotUtf8 | undefined {
  if (isUtf8(bytes)) return undefined;
  const offset = firstInvalidUtf8(bytes);
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  const { line, column } = lineAndColumn(bytes.subarray(0, offset).toString('utf8'));
  return { offset, line, column, byte: bytes[offset]!, utf16 };
}

/** `the file is not UTF-8 text: byte 0xE9 at line 1, column 10; save it as UTF-8`, with its byte offset when `withOffset`. */
export function notUtf8Message(at: NotUtf8, withOffset = false): string {
  const hex = at.byte.toString(16).toUpperCase().padStart(2, '0');
  const asides = [withOffset ? `byte offset ${at.offset}` : '', at.utf16 ? 'it starts as UTF-16 does' : ''].filter(Boolean);
  return `the file is not UTF-8 text: byte 0x${hex} at line ${at.line}, column ${at.column}${asides.length ? ` (${asides.join('; ')})` : ''}; save it as UTF-8`;
}

/** What a path that is not a regular file is: `a folder`, `a FIFO`, `a device`, `a socket`. */
export function fileKind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

/** The offset of the first byte of `bytes` that does not start or continue a valid UTF-8 sequence (it has one). */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    if (need > 0 && !isUtf8(bytes.subarray(i, i + need + 1))) return i;
    i += need + 1;
  }
  return i;
}

function lineAndColumn(before: string): { line: number; column: number } {
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
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
