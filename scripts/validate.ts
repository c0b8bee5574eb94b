/**
 * `npm run validate [-- <dir>]`: checks a definitions folder (default
 * ./definitions) the way the gateway loads it, and prints every problem as
 *
 *   <file>:<line>:<column> <CODE> <message>
 *
 * with the file relative to the current folder, so editors and CI link to
 * it. Exits 1 when there are problems, 0 with a one-line summary otherwise.
 */
import path from 'node:path';
import { loadDefinitions } from '../engine/definitions/loader.ts';
import { formatProblem } from '../engine/definitions/problems.ts';

const dir = path.resolve(process.argv[2] ?? 'definitions');
const result = await loadDefinitions(dir);
const display = (file: string) => path.relative(process.cwd(), path.join(dir, file)) || '.';

if (!result.ok) {
  for (const problem of result.problems) process.stdout.write(`${formatProblem(problem, display)}\n`);
  const count = result.problems.length;
  process.stderr.write(`${count} problem${count === 1 ? '' : 's'} in ${display('.')} (${result.stats.files} files)\n`);
  process.exit(1);
}

const apps = [...result.snapshot.apps.values()];
const versions = apps.reduce((n, app) => n + app.versions.size + (app.draft ? 1 : 0), 0);
const actions = apps.reduce(
  (n, app) => n + [...app.versions.values(), ...(app.draft ? [app.draft] : [])].reduce((m, v) => m + v.actions.size, 0),
  0,
);
process.stdout.write(
  `ok: ${display('.')} has ${apps.length} apps, ${versions} versions, ${actions} actions in ${result.stats.files} files (hash ${result.hash.slice(0, 12)})\n`,
);
