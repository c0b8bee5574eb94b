import fs from 'node:fs/promises';
import { fileKind, notUtf8, notUtf8Message } from '../../core/definitions/source-files.ts';
import { ImportError } from './import-error.ts';

/** What reading a file of a description found. */
export type DescriptionBytes = { missing: true } | { notFile: string } | { tooLarge: number } | { failed: string } | { bytes: Buffer };

/**
 * The bytes of the file at `absolute`, at most `limit`: `missing` when there
 * is none, `notFile` (a folder, a FIFO, a device, a socket) when it is not a
 * regular file, `tooLarge` (its size, or `limit` + 1 when it grew while
 * read) when it holds more, `failed` with the error's message when it
 * cannot be read (no permission). Opened without blocking (a FIFO's open waits for
 * a writer otherwise, and its read may never end) and checked on the
 * descriptor, so what is checked is what is read, as the definitions loader
 * reads a definition file (source-files.ts readDefinitionFile).
 */
export async function descriptionBytes(absolute: string, limit: number): Promise<DescriptionBytes> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(absolute, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { failed: (error as Error).message };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { notFile: fileKind(stat) };
    if (stat.size > limit) return { tooLarge: stat.size };
    // Read to the end, not to the size fstat gave (a file still being written may have grown), and never past the limit.
    let buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > limit) return { tooLarge: length };
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { failed: (error as Error).message };
  } finally {
    await handle.close();
  }
}

/**
 * The text of a description file's bytes; one that is not UTF-8 (Latin-1,
 * UTF-16) is refused as FILE_UNREADABLE at its first byte that is not, as
 * the definitions loader and `fmt` refuse a definition file: read as UTF-8,
 * each of its letters would silently become U+FFFD in the app written.
 */
export function descriptionText(bytes: Buffer, shown: string): string {
  const bad = notUtf8(bytes);
  if (bad) throw new ImportError(`${shown}:${bad.line}:${bad.column} FILE_UNREADABLE ${notUtf8Message(bad, true)}`);
  return bytes.toString('utf8');
}

/** FILE_UNREADABLE for a description (or a file it refers to) that is not a regular file (it would never be read to its end, or is not text), or that could not be read. */
export function unreadable(shown: string, found: { notFile: string } | { failed: string }): ImportError {
  const why = 'notFile' in found ? `not a regular file (${found.notFile}): a description must be a file of JSON or YAML text` : found.failed;
  return new ImportError(`${shown}:1:1 FILE_UNREADABLE ${why}`);
}
