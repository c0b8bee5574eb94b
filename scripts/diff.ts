/**
 * `npm run diff -- [--json] [--dir <definitions folder>] <base> <head>`: what a
 * definitions change means, for a pull-request comment. Each side is a folder
 * or a git revision (`npm run diff -- main HEAD`); `--dir` names the
 * definitions folder inside the repository for revisions (default
 * DEFINITIONS_DIR, else definitions). When an app's `published` pointer
 * moves, what clients of `published` now get is reported too.
 *
 * Or both sides are one version of one app, `<folder>/<app>@<version>` (or
 * `<rev>:<folder>/<app>@<version>`, `<version>` a number, draft or
 * published): `npm run diff -- definitions/github@1 definitions/github@2`
 * compares version 1 as the old side with version 2 as the new one.
 *
 * Prints Markdown (or JSON with --json). Exits 1 when a released version
 * (a numbered one, or the app itself) has a breaking change, 0 otherwise
 * (breaking changes only in draft never fail), 2 on a usage error (an unknown
 * app or version among them) or when a side does not load (its located
 * problems are printed).
 */
import { commandLine, isEntry, usageLine } from '../engine/platform/cli/command-line.ts';
import { isAppVersionSpec, loadAppVersion } from '../engine/authoring/app-version-side.ts';
import { loadSide, SideNotFound } from '../engine/authoring/definitions-side.ts';
import { diffAppVersions, diffDefinitions } from '../engine/authoring/definition-diff.ts';
import type { DefinitionChange } from '../engine/authoring/definition-change.ts';
import { diffJson, diffMarkdown, summarise } from '../engine/authoring/diff-report.ts';
import { formatProblem, type DefinitionProblem } from '../engine/core/definitions/problems.ts';

export const cli = {
  command: 'npm run diff --',
  summary:
    "What a definitions change means, as Markdown for a pull-request comment: each side a folder or a git revision, or both one version of one app (<folder>/<app>@<version>, or <rev>:<folder>/<app>@<version>; a version is a number, draft or published). Exits 1 on a breaking change in a released version.",
  options: {
    json: { type: 'boolean' as const, description: 'print JSON for tools instead of Markdown' },
    dir: { type: 'string' as const, value: '<definitions folder>', description: 'the definitions folder inside the repository, for revisions (default DEFINITIONS_DIR, else definitions)' },
  },
  positionals: [
    { name: '<base>', description: 'the old side: a folder, a git revision, or <folder>/<app>@<version>' },
    { name: '<head>', description: 'the new side, of the same kind' },
  ],
  examples: ['npm run diff -- main HEAD', 'npm run diff -- main HEAD --dir defs --json', 'npm run diff -- definitions/github@1 definitions/github@2'],
};

class UsageError extends Error {}

interface DiffOptions {
  sides: [string, string];
  json: boolean;
  dir: string;
  dirGiven: boolean;
}

type Failed = { ok: false; label: string; problems: DefinitionProblem[]; displayFile: (file: string) => string };

/** The changes, or the sides that do not load. */
async function compare(options: DiffOptions): Promise<{ changes: DefinitionChange[] } | { failed: Failed[] }> {
  const cwd = process.cwd();
  const [base, head] = options.sides;
  const [baseApp, headApp] = [await isAppVersionSpec(base, cwd), await isAppVersionSpec(head, cwd)];
  if (baseApp !== headApp) {
    const [one, tree] = baseApp ? [base, head] : [head, base];
    throw new UsageError(`${one} is one version of an app and ${tree} is a whole tree: give both sides as <folder>/<app>@<version>, or neither`);
  }
  if (baseApp) {
    if (options.dirGiven) throw new UsageError('--dir is for whole-tree sides; a <folder>/<app>@<version> side names its folder');
    // One after the other: the first side's problem is the one reported.
    const loaded = [await loadAppVersion(base, cwd), await loadAppVersion(head, cwd)];
    const [was, now] = loaded;
    if (!was!.ok || !now!.ok) return { failed: loaded.filter((side): side is Failed => !side.ok) };
    if (was!.app.id !== now!.app.id) throw new UsageError(`${base} is app ${was!.app.id} and ${head} is app ${now!.app.id}: compare two versions of one app`);
    return { changes: diffAppVersions(was!, now!) };
  }
  const sideOptions = { cwd, definitionsDir: options.dir };
  const loaded = [await loadSide(base, sideOptions), await loadSide(head, sideOptions)];
  const [was, now] = loaded;
  if (!was!.ok || !now!.ok) return { failed: loaded.filter((side): side is Failed => !side.ok) };
  return { changes: diffDefinitions(was!.snapshot, now!.snapshot) };
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const parsed: DiffOptions = {
    sides: args.positionals as [string, string],
    json: args.values.json === true,
    dir: args.values.dir ?? process.env.DEFINITIONS_DIR ?? 'definitions',
    dirGiven: args.values.dir !== undefined,
  };
  try {
    const outcome = await compare(parsed);
    if ('failed' in outcome) {
      for (const side of outcome.failed) {
        process.stderr.write(`${side.label} does not load (${side.problems.length} problem${side.problems.length === 1 ? '' : 's'}):\n`);
        for (const problem of side.problems) process.stderr.write(`${formatProblem(problem, side.displayFile)}\n`);
      }
      process.exitCode = 2;
    } else {
      const { changes } = outcome;
      const [base, head] = parsed.sides;
      process.stdout.write(parsed.json ? diffJson(base, head, changes) : diffMarkdown(base, head, changes));
      process.exitCode = summarise(changes).breakingReleased > 0 ? 1 : 0;
    }
  } catch (error) {
    if (!(error instanceof SideNotFound || error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  }
}
