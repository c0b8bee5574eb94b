/**
 * `npm run fmt -- [--check] [<dir>]`: rewrites the definition files of a
 * folder (default DEFINITIONS_DIR, else ./definitions) in canonical form, so
 * a pull request's diff shows only what changed in meaning.
 *
 *   npm run fmt                 rewrites files, lists the ones it changed
 *   npm run fmt -- --check      writes nothing; lists non-canonical files, exits 1 if any
 *
 * Exits 2 on a usage error or a missing folder, 1 when a file cannot be
 * formatted (invalid YAML) or, with --check, is not canonical. On a
 * terminal, stderr shows how many files are done.
 */
import path from 'node:path';
import { formatFolder } from '../engine/authoring/format-folder.ts';
import { commandLine, isEntry } from '../engine/platform/cli/command-line.ts';
import { progressLine } from '../engine/platform/cli/progress.ts';

export const cli = {
  command: 'npm run fmt --',
  summary: 'Rewrites the definition files of a folder in canonical form and lists the files it changed.',
  options: {
    check: { type: 'boolean' as const, description: 'write nothing; list the files not in canonical form, exit 1 if any' },
  },
  positionals: [{ name: '<dir>', description: 'the definitions folder (default DEFINITIONS_DIR, else definitions)', optional: true as const }],
  examples: ['npm run fmt', 'npm run fmt -- --check', 'npm run fmt -- path/to/dir'],
};

if (isEntry(import.meta.url)) {
  const args = commandLine(cli);
  if (args) await format(path.resolve(args.positionals[0] ?? process.env.DEFINITIONS_DIR ?? 'definitions'), args.values.check === true);
}

async function format(dir: string, check: boolean): Promise<void> {
  const display = (file: string) => path.relative(process.cwd(), path.join(dir, file)) || '.';
  const progress = progressLine(check ? 'fmt --check' : 'fmt', 'files');
  const result = await formatFolder(dir, { write: !check, progress: (done, total) => progress.update(done, total) });
  progress.end();
  if (result.folderProblem) {
    process.stderr.write(`${result.folderProblem}\n`);
    process.exitCode = 2;
    return;
  }
  const refused = result.files.filter((f) => f.status === 'refused');
  const changed = result.files.filter((f) => f.status === 'rewritten' || f.status === 'not-canonical');
  for (const f of refused) if (f.status === 'refused') process.stdout.write(`${display(f.file)}:${f.line}:${f.column} ${f.reason}\n`);
  for (const f of changed) process.stdout.write(`${display(f.file)}${check ? ' is not canonical' : ''}\n`);
  const total = result.files.length;
  const summary = check
    ? changed.length
      ? `${changed.length} of ${total} files not canonical: run npm run fmt`
      : refused.length
        ? `${total - refused.length} of ${total} files canonical`
        : `ok: ${total} files canonical`
    : `${changed.length} of ${total} files rewritten`;
  process.stderr.write(`${summary}${refused.length ? `, ${refused.length} could not be formatted` : ''}\n`);
  if (refused.length || (check && changed.length)) process.exitCode = 1;
}
