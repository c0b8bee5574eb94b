import { notUtf8, notUtf8Message } from '../../core/definitions/source-files.ts';
import { ImportError } from './import-error.ts';

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
