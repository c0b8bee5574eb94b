/**
 * `npm run catalogue -- [--check] [--dir <definitions folder>] [--out <page>] [--descriptions <folder>]`:
 * writes the catalogue page (every app, its auths, actions and their
 * arguments) from the definitions as the gateway's loader loads them. With
 * --check it writes nothing and exits 1 listing what of the page is stale
 * (a spec runs it, so whoever changes an app runs `npm run catalogue`).
 * Exits 2 on a usage error or when the definitions do not load.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { cataloguePage, pageText } from '../engine/authoring/catalogue-page.ts';
import { staleParts } from '../engine/authoring/catalogue-stale.ts';
import { checkDescriptions, DESCRIPTIONS_DIR, readDescriptions } from '../engine/authoring/description-fixtures.ts';
import { ICON_FILE } from '../engine/core/describe/app-icon.ts';
import { commandLine, isEntry } from '../engine/platform/cli/command-line.ts';
import { loadDefinitions } from '../engine/core/definitions/loader.ts';
import { formatProblem } from '../engine/core/definitions/problems.ts';
import type { AppEntry } from '../engine/core/definitions/snapshot.ts';

export const cli = {
  command: 'npm run catalogue --',
  summary: 'Writes the catalogue page (every app by category, its icon, auths, actions and their arguments, and whether its description check holds) from the definitions as the gateway loads them.',
  options: {
    check: { type: 'boolean' as const, description: 'write nothing; exit 1 listing what of the page is stale, 0 when it is current' },
    dir: { type: 'string' as const, value: '<definitions folder>', description: 'where the definitions are (default definitions)' },
    out: { type: 'string' as const, value: '<page>', description: 'the page to write (default docs/catalogue.md)' },
    descriptions: { type: 'string' as const, value: '<folder>', description: 'the kept provider descriptions (default spec/fixtures/descriptions)' },
  },
  examples: ['npm run catalogue', 'npm run catalogue -- --check'],
};

// exitCode rather than exit() below: output to a pipe is written asynchronously and must not be cut off.
const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const options = { check: args.values.check === true };
  const dir = path.resolve(args.values.dir ?? 'definitions');
  const out = path.resolve(args.values.out ?? 'docs/catalogue.md');
  const display = (file: string) => path.relative(process.cwd(), file) || '.';
  const descriptions = path.resolve(args.values.descriptions ?? DESCRIPTIONS_DIR);
  const isFolder = (at: string) => fs.stat(at).then((s) => s.isDirectory(), () => false);
  // Usage errors, before any work: a folder as the page (EISDIR and a stack otherwise), a descriptions folder that is not
  // there (a typo would write a page without one description check).
  const usage = (await isFolder(out))
    ? `--out ${args.values.out ?? display(out)} is a folder: give the page to write (${path.join(args.values.out ?? 'docs', 'catalogue.md')})`
    : args.values.descriptions !== undefined && !(await isFolder(descriptions))
      ? `--descriptions ${args.values.descriptions} is not a folder`
      : null;
  const loaded = usage ? null : await loadDefinitions(dir);
  if (!loaded) {
    process.stderr.write(`${usage}\n`);
    process.exitCode = 2;
  } else if (!loaded.ok) {
    for (const problem of loaded.problems) process.stderr.write(`${formatProblem(problem, (file) => display(path.join(dir, file)))}\n`);
    process.stderr.write(`${display(dir)} does not load: fix it (npm run validate) before writing the catalogue\n`);
    process.exitCode = 2;
  } else {
    const readmes = new Map<AppEntry, string | undefined>();
    for (const app of loaded.snapshot.apps.values()) {
      const readme = path.join(dir, app.file.split('/')[0]!, 'README.md');
      const exists = await fs.stat(readme).then((s) => s.isFile(), () => false);
      readmes.set(app, exists ? path.relative(path.dirname(out), readme).split(path.sep).join('/') : undefined);
    }
    const icons = new Map<AppEntry, string | undefined>();
    for (const app of loaded.snapshot.apps.values()) {
      const icon = path.join(dir, app.file.split('/')[0]!, ICON_FILE);
      const exists = await fs.stat(icon).then((s) => s.isFile(), () => false);
      icons.set(app, exists ? path.relative(path.dirname(out), icon).split(path.sep).join('/') : undefined);
    }
    const checks = new Map(checkDescriptions(loaded.snapshot, await readDescriptions(descriptions)).map((o) => [o.app, o]));
    const descriptionCheck = (app: AppEntry) => {
      const outcome = checks.get(app.slug);
      if (!outcome) return undefined;
      const allowed = outcome.allowed ? `, ${outcome.allowed} allowance${outcome.allowed === 1 ? '' : 's'}` : '';
      return outcome.mismatches.length ? `fails (${outcome.mismatches.length} mismatches)` : `holds (${outcome.actions} actions${allowed})`;
    };
    const parts = cataloguePage({ snapshot: loaded.snapshot, readmeLink: (app) => readmes.get(app), iconLink: (app) => icons.get(app), descriptionCheck });
    const apps = parts.length - 1;
    if (options.check) {
      const written = await fs.readFile(out, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
      const stale = staleParts(parts, written);
      if (stale.length) {
        process.stdout.write(`${display(out)} is stale (run npm run catalogue):\n${stale.map((line) => `  ${line}\n`).join('')}`);
        process.exitCode = 1;
      } else {
        process.stdout.write(`${display(out)} is current (${apps} app${apps === 1 ? '' : 's'})\n`);
      }
    } else {
      await fs.mkdir(path.dirname(out), { recursive: true });
      await fs.writeFile(out, pageText(parts));
      process.stdout.write(`wrote ${display(out)} (${apps} app${apps === 1 ? '' : 's'})\n`);
    }
  }
}
