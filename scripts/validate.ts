/**
 * `npm run validate -- [<dir>]`: checks a definitions folder (default
 * DEFINITIONS_DIR, else ./definitions) the way the gateway loads it, and prints every problem as
 *
 *   <file>:<line>:<column> <CODE> <message>
 *
 * with the file relative to the current folder, so editors and CI link to
 * it, warnings (which do not stop a load) as well. Exits 1 when there are
 * problems, 0 with a one-line summary otherwise (and the warnings counted),
 * 2 on a usage error or a folder that is not there. On a terminal, stderr
 * shows how many files are analysed.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { commandLine, isEntry, usageLine } from '../engine/platform/cli/command-line.ts';
import { progressLine } from '../engine/platform/cli/progress.ts';
import { loadDefinitions } from '../engine/core/definitions/loader.ts';
import { formatProblem } from '../engine/core/definitions/problems.ts';
import type { DefinitionsSnapshot } from '../engine/core/definitions/snapshot.ts';

export const cli = {
  command: 'npm run validate --',
  summary: 'Checks a definitions folder the way the gateway loads it and prints every problem as <file>:<line>:<column> <CODE> <message>; exits 1 when there are problems.',
  options: {},
  positionals: [{ name: '<dir>', description: 'the definitions folder (default DEFINITIONS_DIR, else definitions)', optional: true as const }],
  examples: ['npm run validate', 'npm run validate -- path/to/dir'],
};

if (isEntry(import.meta.url)) {
  const args = commandLine(cli);
  const dir = args && path.resolve(args.positionals[0] ?? process.env.DEFINITIONS_DIR ?? 'definitions');
  // A folder that is not there is a usage error (exit 2), as fmt, catalogue and test:definitions say it: nothing was checked.
  if (dir && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`${path.relative(process.cwd(), dir) || dir} is not a folder\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  } else if (dir) {
    await validate(dir);
  }
}

async function validate(dir: string): Promise<void> {
  const progress = progressLine('validate', 'files');
  const result = await loadDefinitions(dir, (done, total) => progress.update(done, total));
  progress.end();
  const display = (file: string) => path.relative(process.cwd(), path.join(dir, file)) || '.';

  // exitCode rather than exit(): output to a pipe is written asynchronously and must not be cut off.
  for (const warning of result.warnings) process.stdout.write(`${formatProblem(warning, display)} (warning)\n`);
  const warned = result.warnings.length ? `; ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}` : '';
  if (!result.ok) {
    for (const problem of result.problems) process.stdout.write(`${formatProblem(problem, display)}\n`);
    const count = result.problems.length;
    process.stderr.write(`${count} problem${count === 1 ? '' : 's'} in ${display('.')} (${result.stats.files} files)${warned}\n`);
    process.exitCode = 1;
  } else {
    summarise(result.snapshot, display, warned);
  }
}

function summarise(snapshot: DefinitionsSnapshot, display: (file: string) => string, warned: string): void {
  const apps = [...snapshot.apps.values()];
  const versions = apps.flatMap((app) => [...app.versions.values(), ...(app.draft ? [app.draft] : [])]);
  const actions = versions.reduce((n, version) => n + version.actions.size, 0);
  const hash = snapshot.hash.slice(0, 12);
  process.stdout.write(`ok: ${display('.')} has ${apps.length} apps, ${versions.length} versions, ${actions} actions in ${snapshot.fileCount} files (hash ${hash})${warned}\n`);
}
