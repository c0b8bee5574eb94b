/**
 * `npm run diff -- <base> <head> [--json] [--dir definitions]`: what a
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
import { isAppVersionSpec, loadAppVersion } from '../engine/authoring/app-version-side.ts';
import { loadSide, SideNotFound } from '../engine/authoring/definitions-side.ts';
import { diffAppVersions, diffDefinitions } from '../engine/authoring/definition-diff.ts';
import type { DefinitionChange } from '../engine/authoring/definition-change.ts';
import { diffJson, diffMarkdown, summarise } from '../engine/authoring/diff-report.ts';
import { formatProblem, type DefinitionProblem } from '../engine/definitions/problems.ts';

const USAGE = [
  'usage: npm run diff -- <base> <head> [--json] [--dir <definitions folder>]   (each side a folder or a git revision)',
  '       npm run diff -- <folder>/<app>@<version> <folder>/<app>@<version> [--json]   (a side may be <rev>:<folder>/<app>@<version>; a version is a number, draft or published)',
  '',
].join('\n');

class UsageError extends Error {}

function parseArgs(args: string[]): { sides: [string, string]; json: boolean; dir: string; dirGiven: boolean } | string {
  const sides: string[] = [];
  let json = false;
  let dir = process.env.DEFINITIONS_DIR ?? 'definitions';
  let dirGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--dir') {
      const value = args[++i];
      if (!value) return '--dir needs a folder';
      dir = value;
      dirGiven = true;
    } else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else sides.push(arg);
  }
  return sides.length === 2 ? { sides: sides as [string, string], json, dir, dirGiven } : `expected two sides, got ${sides.length}`;
}

type Failed = { ok: false; label: string; problems: DefinitionProblem[]; displayFile: (file: string) => string };

/** The changes, or the sides that do not load. */
async function compare(options: Exclude<ReturnType<typeof parseArgs>, string>): Promise<{ changes: DefinitionChange[] } | { failed: Failed[] }> {
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

const parsed = parseArgs(process.argv.slice(2));
if (typeof parsed === 'string') {
  process.stderr.write(`${parsed}\n${USAGE}`);
  process.exitCode = 2;
} else {
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
    process.stderr.write(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
  }
}
