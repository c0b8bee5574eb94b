/**
 * `npm run fmt [-- --check] [-- <dir>]`: rewrites the definition files of a
 * folder (default DEFINITIONS_DIR, else ./definitions) in canonical form, so
 * a pull request's diff shows only what changed in meaning.
 *
 *   npm run fmt                 rewrites files, lists the ones it changed
 *   npm run fmt -- --check      writes nothing; lists non-canonical files, exits 1 if any
 *
 * Exits 2 on a usage error or a missing folder, 1 when a file cannot be
 * formatted (invalid YAML) or, with --check, is not canonical.
 */
import path from 'node:path';
import { formatFolder } from '../engine/authoring/format-folder.ts';

const args = process.argv.slice(2);
const check = args.includes('--check');
const rest = args.filter((a) => a !== '--check');
const unknown = rest.find((a) => a.startsWith('-'));

if (unknown || rest.length > 1) {
  process.stderr.write(`${unknown ? `unknown option ${unknown}\n` : 'one folder at most\n'}usage: npm run fmt [-- --check] [-- <dir>]\n`);
  process.exitCode = 2;
} else {
  const dir = path.resolve(rest[0] ?? process.env.DEFINITIONS_DIR ?? 'definitions');
  const display = (file: string) => path.relative(process.cwd(), path.join(dir, file)) || '.';
  const result = await formatFolder(dir, { write: !check });
  if (result.folderProblem) {
    process.stderr.write(`${result.folderProblem}\n`);
    process.exitCode = 2;
  } else {
    const refused = result.files.filter((f) => f.status === 'refused');
    const changed = result.files.filter((f) => f.status === 'rewritten' || f.status === 'not-canonical');
    for (const f of refused) if (f.status === 'refused') process.stdout.write(`${display(f.file)}:${f.line}:${f.column} ${f.reason}\n`);
    for (const f of changed) process.stdout.write(`${display(f.file)}${check ? ' is not canonical' : ''}\n`);
    const total = result.files.length;
    const summary = check
      ? changed.length
        ? `${changed.length} of ${total} files not canonical: run npm run fmt`
        : `ok: ${total} files canonical`
      : `${changed.length} of ${total} files rewritten`;
    process.stderr.write(`${summary}${refused.length ? `, ${refused.length} could not be formatted` : ''}\n`);
    if (refused.length || (check && changed.length)) process.exitCode = 1;
  }
}
