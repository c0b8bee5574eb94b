import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT as ROOT } from '../../engine/platform/package-root.ts';

const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** `npm start`'s command as node's arguments: what users (and the container's CMD) run. */
export const START_ARGS: string[] = (() => {
  const [command, ...args] = scripts.start!.split(' ');
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node: ${scripts.start}`);
  return args;
})();

let built = false;

/**
 * Runs `npm start`'s prestart (tsc's incremental build of dist/) once per
 * test process, so spawned gateways run the code under test, compiled, as
 * `npm start` does. A build that fails (a type error) fails the test that
 * needed it, with tsc's output.
 */
export function ensureBuilt(): void {
  if (built) return;
  const [command, ...args] = scripts.prestart!.split(' ');
  if (command !== 'node') throw new Error(`npm start's prestart runs ${command}, not node: ${scripts.prestart}`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building dist/ failed (${scripts.prestart}):\n${result.stdout}\n${result.stderr}`);
  built = true;
}
