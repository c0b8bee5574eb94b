/**
 * `npm run diff -- <base> <head> [--json] [--dir definitions]`: what a
 * definitions change means, for a pull-request comment. Each side is a folder
 * or a git revision (`npm run diff -- main HEAD`); `--dir` names the
 * definitions folder inside the repository for revisions (default
 * DEFINITIONS_DIR, else definitions).
 *
 * Prints Markdown (or JSON with --json). Exits 1 when a released version
 * (a numbered one, or the app itself) has a breaking change, 0 otherwise
 * (breaking changes only in draft never fail), 2 on a usage error or when a
 * side does not load (its located problems are printed).
 */
import { loadSide, SideNotFound, type LoadedSide } from '../engine/authoring/definitions-side.ts';
import { diffDefinitions } from '../engine/authoring/definition-diff.ts';
import { diffJson, diffMarkdown, summarise } from '../engine/authoring/diff-report.ts';
import { formatProblem } from '../engine/definitions/problems.ts';

const USAGE = 'usage: npm run diff -- <base> <head> [--json] [--dir <definitions folder>]   (each side a folder or a git revision)\n';

function parseArgs(args: string[]): { sides: string[]; json: boolean; dir: string } | string {
  const sides: string[] = [];
  let json = false;
  let dir = process.env.DEFINITIONS_DIR ?? 'definitions';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--dir') {
      const value = args[++i];
      if (!value) return '--dir needs a folder';
      dir = value;
    } else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else sides.push(arg);
  }
  return sides.length === 2 ? { sides, json, dir } : `expected two sides, got ${sides.length}`;
}

const parsed = parseArgs(process.argv.slice(2));
if (typeof parsed === 'string') {
  process.stderr.write(`${parsed}\n${USAGE}`);
  process.exitCode = 2;
} else {
  const options = { cwd: process.cwd(), definitionsDir: parsed.dir };
  let loaded: LoadedSide[] | null = null;
  try {
    loaded = await Promise.all(parsed.sides.map((side) => loadSide(side, options)));
  } catch (error) {
    if (!(error instanceof SideNotFound)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
  }
  if (loaded) {
    const [base, head] = loaded as [LoadedSide, LoadedSide];
    const failed = loaded.filter((side) => !side.ok);
    for (const side of failed) {
      if (side.ok) continue;
      process.stderr.write(`${side.label} does not load (${side.problems.length} problem${side.problems.length === 1 ? '' : 's'}):\n`);
      for (const problem of side.problems) process.stderr.write(`${formatProblem(problem, side.displayFile)}\n`);
    }
    if (failed.length) process.exitCode = 2;
    else if (base.ok && head.ok) {
      const changes = diffDefinitions(base.snapshot, head.snapshot);
      process.stdout.write(parsed.json ? diffJson(base.label, head.label, changes) : diffMarkdown(base.label, head.label, changes));
      process.exitCode = summarise(changes).breakingReleased > 0 ? 1 : 0;
    }
  }
}
