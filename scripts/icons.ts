/**
 * `npm run icons -- [--check] [--dir <definitions folder>]`: writes each
 * app's icon.svg beside its app.yaml: the brand's icon from the pinned
 * simple-icons package (CC0-1.0) where it has the brand, else a monogram of
 * the app's name. The gateway serves it at GET /v2/apps/{appSlug}/icon.
 * With --check it writes nothing and exits 1 naming the apps whose icon is
 * missing or differs (a spec runs it). Exits 2 on a usage error or when the
 * definitions do not load.
 */
import path from 'node:path';
import { syncIcons } from '../engine/authoring/app-icons.ts';
import { loadDefinitions } from '../engine/core/definitions/loader.ts';
import { formatProblem } from '../engine/core/definitions/problems.ts';
import { commandLine, isEntry } from '../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'npm run icons --',
  summary: "Writes each app's icon.svg: its brand icon from simple-icons (CC0-1.0) where there is one, else a monogram of its name.",
  options: {
    check: { type: 'boolean' as const, description: 'write nothing; exit 1 naming the apps whose icon.svg is missing or differs' },
    dir: { type: 'string' as const, value: '<definitions folder>', description: 'where the definitions are (default definitions)' },
  },
  examples: ['npm run icons', 'npm run icons -- --check'],
};

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const check = args.values.check === true;
  const dir = path.resolve(args.values.dir ?? 'definitions');
  const display = (file: string) => path.relative(process.cwd(), file) || '.';
  const loaded = await loadDefinitions(dir);
  if (!loaded.ok) {
    for (const problem of loaded.problems) process.stderr.write(`${formatProblem(problem, (file) => display(path.join(dir, file)))}\n`);
    process.stderr.write(`${display(dir)} does not load: fix it (npm run validate) before writing icons\n`);
    process.exitCode = 2;
  } else {
    const outcomes = await syncIcons(dir, loaded.snapshot, { write: !check });
    const brands = outcomes.filter((o) => o.source !== 'monogram').length;
    const changed = outcomes.filter((o) => o.state !== 'current');
    for (const o of changed) process.stdout.write(`${o.state === 'stale' ? 'stale' : 'wrote'} ${display(o.file)} (${o.source})\n`);
    const summary = `${outcomes.length} apps: ${brands} brand icons from simple-icons, ${outcomes.length - brands} monograms`;
    if (check && changed.length) {
      process.stdout.write(`${changed.length} icon${changed.length === 1 ? ' is' : 's are'} stale (run npm run icons); ${summary}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`${check ? 'icons are current' : `${changed.length} written`}; ${summary}\n`);
    }
  }
}
