/**
 * `npm start`'s prestart: builds dist/ when TypeScript is installed (a clone
 * after `npm ci`: tsc's incremental build redoes only what changed, ~1.5 s
 * when nothing did, so a stale dist/ is never started) and then, as
 * `npm run build` does, dist/pglite-cluster (the empty database a first start
 * copies; kept when it is there for this PGlite), and otherwise leaves
 * the dist/ that is there (a production install, `npm ci --omit=dev`, with
 * the build artefact copied in). Plain JavaScript: it runs before anything
 * is compiled, and where neither tsx nor TypeScript is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist/engine/main.js');

let tsc;
try {
  // typescript's exports map names no bin/: found next to its package.json.
  tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
} catch {
  tsc = undefined;
}

if (tsc) {
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  const cluster = spawnSync(process.execPath, [path.join(root, 'dist/scripts/build-pglite-cluster.js')], { cwd: root, stdio: 'inherit' });
  process.exit(cluster.status ?? 1);
}
if (!existsSync(entry)) {
  process.stderr.write('dist/engine/main.js is missing and TypeScript is not installed to build it: run `npm ci` (with dev dependencies) then `npm run build`, or copy in a dist/ built elsewhere\n');
  process.exit(1);
}
