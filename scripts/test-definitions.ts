/**
 * `npm run test:definitions [-- <app>] [-- --dir <folder>]`: runs the
 * offline test cases beside each action (`actions/<action>.test.yaml`) of
 * DEFINITIONS_DIR (else ./definitions) through the engine, with the network
 * replaced by the cases' recorded responses. One line per case, a diff by
 * path for a failing one, then `N passed, M failed`.
 *
 * Exits 1 when a case fails (or a case file is malformed), 2 on a usage
 * error, an unknown app or definitions that do not load.
 */
import path from 'node:path';
import { runDefinitionTests } from '../engine/authoring/definition-tests.ts';

const USAGE = 'usage: npm run test:definitions [-- <app slug or id>] [--dir <definitions folder>]\n';

function parseArgs(args: string[]): { app: string | undefined; dir: string } | string {
  const positional: string[] = [];
  let dir = process.env.DEFINITIONS_DIR ?? 'definitions';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--dir') {
      const value = args[++i];
      if (value === undefined) return '--dir needs a value';
      dir = value;
    } else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else positional.push(arg);
  }
  if (positional.length > 1) return `one app at most, got ${positional.join(' ')}`;
  return { app: positional[0], dir };
}

const parsed = parseArgs(process.argv.slice(2));
if (typeof parsed === 'string') {
  process.stderr.write(`${parsed}\n${USAGE}`);
  process.exitCode = 2;
} else {
  const dir = path.resolve(parsed.dir);
  const display = (file: string) => path.relative(process.cwd(), path.join(dir, file)) || '.';
  const summary = await runDefinitionTests(dir, {
    ...(parsed.app !== undefined ? { app: parsed.app } : {}),
    display,
    write: (line) => process.stdout.write(`${line}\n`),
    error: (line) => process.stderr.write(`${line}\n`),
  });
  // exitCode rather than exit(): output to a pipe is written asynchronously and must not be cut off.
  process.exitCode = summary.exitCode;
}
