/**
 * `npm run test:definitions -- [--dir <folder>] [<app>]`: runs the
 * offline test cases beside each action (`actions/<action>.test.yaml`) of
 * DEFINITIONS_DIR (else ./definitions) through the engine, with the network
 * replaced by the cases' recorded responses. One line per case, a diff by
 * path for a failing one, then `N passed, M failed`. On a terminal, stderr
 * shows how far the load and the run are.
 *
 * Exits 1 when a case fails (or a case file is malformed), 2 on a usage
 * error, an unknown app or definitions that do not load.
 */
import path from 'node:path';
import { runDefinitionTests } from '../engine/authoring/definition-tests.ts';
import { commandLine, isEntry } from '../engine/platform/cli/command-line.ts';
import { progressLine } from '../engine/platform/cli/progress.ts';

export const cli = {
  command: 'npm run test:definitions --',
  summary: "Runs the offline test cases beside each action (actions/<action>.test.yaml) through the engine, the network replaced by the cases' recorded responses.",
  options: {
    dir: { type: 'string' as const, value: '<folder>', description: 'the definitions folder (default DEFINITIONS_DIR, else definitions)' },
  },
  positionals: [{ name: '<app>', description: "only this app's cases, by slug or id", optional: true as const }],
  examples: ['npm run test:definitions', 'npm run test:definitions -- acme-crm', 'npm run test:definitions -- --dir path/to/definitions'],
};

if (isEntry(import.meta.url)) {
  const args = commandLine(cli);
  if (args) await run(path.resolve(args.values.dir ?? process.env.DEFINITIONS_DIR ?? 'definitions'), args.positionals[0]);
}

async function run(dir: string, app: string | undefined): Promise<void> {
  const display = (file: string) => path.relative(process.cwd(), path.join(dir, file)) || '.';
  const progress = progressLine('test:definitions', 'files');
  // The progress line is cleared before each line printed, and drawn again at the next update.
  const line = (stream: NodeJS.WriteStream) => (text: string) => {
    progress.end();
    stream.write(`${text}\n`);
  };
  const summary = await runDefinitionTests(dir, {
    ...(app !== undefined ? { app } : {}),
    display,
    write: line(process.stdout),
    error: line(process.stderr),
    progress: (done, total, what) => progress.update(done, total, what),
  });
  progress.end();
  // exitCode rather than exit(): output to a pipe is written asynchronously and must not be cut off.
  process.exitCode = summary.exitCode;
}
