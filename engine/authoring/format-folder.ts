import fs from 'node:fs/promises';
import path from 'node:path';
import { placeOf } from '../core/definitions/layout.ts';
import { readSourceFiles } from '../core/definitions/source-files.ts';
import { formatDefinition } from './canonical-yaml.ts';

/** What `npm run fmt` found for one definition file. */
export type FileFormatStatus =
  | { file: string; status: 'canonical' }
  | { file: string; status: 'rewritten' | 'not-canonical'; text: string }
  | { file: string; status: 'refused'; line: number; column: number; reason: string };

export interface FolderFormatResult {
  files: FileFormatStatus[];
  /** A problem with the folder itself (it does not exist). */
  folderProblem: string | null;
}

/**
 * Formats every definition file of a folder (app, api, auth and action files
 * where the layout puts them). Files the layout does not define, and offline
 * test cases (`*.test.yaml`), are left alone: `npm run validate` speaks for
 * the former, and the latter are data, not definitions.
 * With `write: false` (`--check`) nothing is written.
 */
/** `progress`: told of the files formatted (or checked) so far, for a tool's progress line. */
export async function formatFolder(dir: string, options: { write: boolean; progress?: (done: number, total: number) => void }): Promise<FolderFormatResult> {
  const { files, problems } = await readSourceFiles(dir);
  const missing = problems.find((p) => p.code === 'DEFINITIONS_DIR_MISSING');
  if (missing) return { files: [], folderProblem: missing.message };
  const results: FileFormatStatus[] = [];
  // A file that cannot be read as text (not UTF-8, too large, not a file) cannot be formatted: said, and left as it is.
  for (const problem of problems) {
    if (problem.code === 'FILE_UNREADABLE' && placeOf(problem.file).kind !== 'unexpected') {
      results.push({ file: problem.file, status: 'refused', line: problem.line, column: problem.column, reason: `FILE_UNREADABLE ${problem.message}` });
    }
  }
  for (const [index, source] of files.entries()) {
    options.progress?.(index, files.length);
    const place = placeOf(source.file);
    if (place.kind === 'unexpected') continue;
    const outcome = formatDefinition(place.kind, source.text);
    if (!outcome.ok) {
      results.push({ file: source.file, status: 'refused', line: outcome.line, column: outcome.column, reason: outcome.reason });
    } else if (!outcome.changed) {
      results.push({ file: source.file, status: 'canonical' });
    } else if (options.write) {
      await fs.writeFile(path.join(dir, source.file), outcome.text);
      results.push({ file: source.file, status: 'rewritten', text: outcome.text });
    } else {
      results.push({ file: source.file, status: 'not-canonical', text: outcome.text });
    }
  }
  options.progress?.(files.length, files.length);
  results.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { files: results, folderProblem: null };
}
