/**
 * The second half of `npm run build` (after tsc): makes dist/pglite-cluster, an empty database of the
 * installed PGlite that the gateway copies into a DATA_DIR that has none, instead of creating one there
 * (initdb peaks at ~1 GB of RSS; a copy costs no more than a restart: engine/platform/store/sql/pglite-create.ts).
 * Kept when it is already there for this PGlite (prints nothing); made again, ~5 to 10 s, when PGlite's version
 * changed. Run compiled by `npm start`'s prestart and the image's build stage too, and as `npm run build:cluster`
 * (npm run dev's predev).
 */
import { commandLine, isEntry } from '../engine/platform/cli/command-line.ts';
import { buildCluster, SHIPPED_CLUSTER_DIR } from '../engine/platform/store/sql/pglite-create.ts';

export const cli = {
  command: 'npm run build:cluster --',
  summary: "Makes dist/pglite-cluster, the empty embedded database a first start copies (kept when it is this PGlite's already).",
  options: {},
  positionals: [{ name: '<dir>', description: 'where to make it (default dist/pglite-cluster)', optional: true as const }],
  examples: ['npm run build:cluster'],
};

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const target = args.positionals[0] ?? SHIPPED_CLUSTER_DIR;
  const started = performance.now();
  try {
    if ((await buildCluster(target)) === 'built') {
      process.stdout.write(`made ${target}, the empty embedded database a first start copies (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
    }
  } catch (error) {
    process.stderr.write(`could not make ${target}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
