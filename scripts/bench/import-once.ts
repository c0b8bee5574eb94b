/**
 * One measured import for `npm run bench:import` (import-cost.ts), in a
 * process of its own: `node --import tsx scripts/bench/import-once.ts <file> <dir>`.
 * Prints { importMs, cpuMs, maxRssMB, actions, cases } as JSON: cpuMs is
 * this process's CPU time (user and system), what the import costs whatever
 * else the machine runs.
 */
import { runImport } from '../../engine/authoring/import/run-import.ts';

const [file, dir] = process.argv.slice(2);
const started = performance.now();
const cpu = process.cpuUsage();
const outcome = await runImport(file!, { dir: dir!, slug: 'bench-import' });
const importMs = Math.round(performance.now() - started);
const spent = process.cpuUsage(cpu);
const cpuMs = Math.round((spent.user + spent.system) / 1000);
if (outcome.exitCode !== 0) {
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
} else {
  const app = outcome.app!;
  const maxRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(JSON.stringify({ importMs, cpuMs, maxRssMB, actions: app.actions.length, cases: app.actions.reduce((n, a) => n + a.cases.length, 0) }));
}
