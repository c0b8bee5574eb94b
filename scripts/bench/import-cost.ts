/**
 * `npm run bench:import -- [--operations <n>] [--rounds <n>]`: what `npm run
 * import` costs on a large description. The description is DigitalOcean's
 * (spec/fixtures/openapi-import/digitalocean, 659 operations), its paths
 * copied under /copy-2, /copy-3, ... (operation ids suffixed) until it has
 * at least --operations (default 1,000). Each round imports it in a fresh
 * process (scripts/bench/import-once.ts: the command's own work, in-process,
 * written to a temp folder) and reports the import's wall and CPU time, the
 * process's wall time (Node and tsx starting included) and its peak
 * resident memory, with the machine's load. Reports figures; never fails.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE = path.join(ROOT, 'spec/fixtures/openapi-import/digitalocean/digitalocean.json');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export const cli = {
  command: 'npm run bench:import --',
  summary: "Imports a large description (DigitalOcean's, its paths copied until it has --operations) in fresh processes and reports time and peak memory with the machine's load.",
  options: {
    operations: { type: 'string' as const, value: '<n>', description: 'operations in the description (default 1000)' },
    rounds: { type: 'string' as const, value: '<n>', description: 'imports measured (default 3)' },
  },
  examples: ['npm run bench:import', 'npm run bench:import -- --operations 2000 --rounds 1'],
};

/** DigitalOcean's description with its paths copied under /copy-<n> until it has `wanted` operations. */
export async function largeDescription(wanted: number): Promise<{ document: Record<string, unknown>; operations: number }> {
  const document = JSON.parse(await fs.readFile(SOURCE, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const original = Object.entries(document.paths);
  const count = (item: Record<string, unknown>) => Object.keys(item).filter((k) => METHODS.includes(k)).length;
  let operations = original.reduce((n, [, item]) => n + count(item), 0);
  for (let copy = 2; operations < wanted; copy++) {
    for (const [route, item] of original) {
      if (operations >= wanted) break;
      const copied = structuredClone(item);
      for (const key of Object.keys(copied)) {
        const op = copied[key];
        if (METHODS.includes(key) && op && typeof op.operationId === 'string') op.operationId = `${op.operationId}_copy${copy}`;
      }
      document.paths[`/copy-${copy}${route}`] = copied;
      operations += count(copied);
    }
  }
  return { document, operations };
}

function load(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

function once(file: string, dir: string): Promise<{ importMs: number; cpuMs: number; maxRssMB: number; actions: number; cases: number; wallMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bench/import-once.ts'), file, dir], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`import failed: ${stderr || error.message}`));
      resolve({ ...(JSON.parse(stdout) as { importMs: number; cpuMs: number; maxRssMB: number; actions: number; cases: number }), wallMs: Date.now() - started });
    });
  });
}

if (isEntry(import.meta.url)) {
  const args = commandLine(cli);
  const bad = Object.entries({ operations: args?.values.operations, rounds: args?.values.rounds }).find(([, value]) => value !== undefined && !(Number.isInteger(Number(value)) && Number(value) >= 1));
  if (args && bad) {
    process.stderr.write(`--${bad[0]} must be a whole number, 1 or more (got ${bad[1]})\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  } else if (args) {
    const wanted = Number(args.values.operations ?? 1000);
    const rounds = Number(args.values.rounds ?? 3);
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-import-'));
    try {
      const { document, operations } = await largeDescription(wanted);
      const file = path.join(tmp, 'large.json');
      await fs.writeFile(file, JSON.stringify(document));
      const size = (await fs.stat(file)).size;
      process.stdout.write(`description: ${operations} operations, ${(size / 1024 / 1024).toFixed(1)} MB (DigitalOcean's, paths copied); ${os.cpus().length} cores\n`);
      for (let round = 1; round <= rounds; round++) {
        const before = load();
        const result = await once(file, path.join(tmp, `round-${round}`));
        process.stdout.write(
          `round ${round}: import ${(result.importMs / 1000).toFixed(1)} s (CPU ${(result.cpuMs / 1000).toFixed(1)} s), process ${(result.wallMs / 1000).toFixed(1)} s, peak RSS ${result.maxRssMB} MB; ${result.actions} actions, ${result.cases} cases; load ${before} -> ${load()}\n`,
        );
      }
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }
}
