/**
 * The production start against the development one, side by side in one
 * run: `npm start`'s command (plain node on dist/) and `npm run dev`'s (tsx
 * on the sources), each started as its own process on an empty DATA_DIR with
 * the bench app. Per start: the time from spawn to the first 200 of /health,
 * the helper processes it runs (tsx: esbuild), then a load run against the
 * bench action and the gateway process's CPU per request. Rounds rotate
 * which goes first; the report gives medians.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import { BENCH_ACTION, BENCH_APP, benchAppFiles, UPSTREAM_SECRET, writeFiles } from './bench-app.ts';
import { measure, type LoadSettings } from './load.ts';
import { median, round } from './stats.ts';

const scripts = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const API_KEY = 'bench-start-key-0123456789abcdef';

/**
 * The commands compared, run with this node: npm start's and npm run dev's,
 * and npm start's without --enable-source-maps, to show what the source
 * maps cost (a stack trace built in a request is mapped to the .ts lines).
 */
export const VARIANTS = { compiled: scripts.start!, tsx: scripts.dev!, 'compiled-no-maps': scripts.start!.replace(' --enable-source-maps', '') };
export type Variant = keyof typeof VARIANTS;

export interface StartSample {
  variant: Variant;
  round: number;
  /** Spawn to the first 200 of /health. */
  startMs: number;
  /** Processes the gateway process had started (and still ran) when /health first answered. */
  helperProcesses: string[];
  rssMbAtHealth: number;
  requestsPerSecond: number;
  /** User + system CPU of the gateway process per 2xx response under load. */
  cpuUsPerRequest: number;
  /** Answers that were not 2xx, and errors (timeouts included), under load: reported, as a loaded machine makes a few. */
  non2xx: number;
  errors: number;
}

export interface StartSummary {
  variant: Variant;
  command: string;
  startMsMedian: number;
  startMsAll: number[];
  cpuUsPerRequestMedian: number;
  requestsPerSecondMedian: number;
  rssMbAtHealthMedian: number;
  helperProcesses: string[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** User + system CPU a process has used, in µs (Linux /proc). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return round(Number(line.split(/\s+/)[1]) / 1024, 1);
}

/** The processes `pid` started, from any of its threads (tsx starts esbuild from its loader's thread). */
function children(pid: number): string[] {
  const ids = readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean));
  return ids.flatMap((id) => {
    try {
      const command = readFileSync(`/proc/${id}/cmdline`, 'utf8').split('\0').filter(Boolean);
      return command.length ? [path.basename(command[0]!) + (command[1] ? ` ${command[1]}` : '')] : [];
    } catch {
      return [];
    }
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function startOnce(variant: Variant, round_: number, upstreamUrl: string, load: LoadSettings): Promise<StartSample> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-start-'));
  const definitionsDir = path.join(root, 'definitions');
  await writeFiles(definitionsDir, benchAppFiles(upstreamUrl));
  const port = await freePort();
  const [command, ...args] = VARIANTS[variant].split(' ');
  if (command !== 'node') throw new Error(`${variant} runs ${command}, not node`);
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: PACKAGE_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(root, 'data'),
      DEFINITIONS_DIR: definitionsDir,
      BOOTSTRAP_API_KEY: API_KEY,
      EGRESS_ALLOW: '127.0.0.1/32',
      // silent: autocannon hangs up on in-flight requests when a run ends, and each is logged as an error with its stack.
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  try {
    let startMs = 0;
    while (!startMs) {
      if (child.exitCode !== null) throw new Error(`${variant} exited with ${child.exitCode}: ${stderr}`);
      if (performance.now() - started > 60_000) throw new Error(`${variant} did not answer /health within 60 s: ${stderr}`);
      const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
      if (ok) startMs = round(performance.now() - started, 0);
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const helperProcesses = children(child.pid!);
    const rssMbAtHealth = rssMb(child.pid!);
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/v2/connections`, { method: 'POST', headers, body: JSON.stringify({ appSlug: BENCH_APP, credentials: { apiKey: UPSTREAM_SECRET } }) });
    if (created.status !== 201 && created.status !== 200) throw new Error(`creating the connection answered ${created.status}: ${await created.text()}`);
    const connectionId = ((await created.json()) as { data: { id: string } }).data.id;
    const target = { name: variant, url: `${url}/v2/universal/apps/${BENCH_APP}/actions/${BENCH_ACTION}/run`, method: 'POST' as const, headers, body: JSON.stringify({ connectionId, arguments: { limit: 10 } }) };
    const check = await fetch(target.url, { method: 'POST', headers, body: target.body });
    if (check.status !== 200) throw new Error(`${variant}: the bench action answered ${check.status}: ${await check.text()}`);
    if (load.warmupSeconds > 0) await measure(target, { ...load, durationSeconds: load.warmupSeconds, warmupSeconds: 0 });
    const before = cpuMicros(child.pid!);
    const figures = await measure(target, { ...load, warmupSeconds: 0 });
    const cpuUsPerRequest = round((cpuMicros(child.pid!) - before) / Math.max(1, figures.requests), 0);
    return { variant, round: round_, startMs, helperProcesses, rssMbAtHealth, requestsPerSecond: figures.requestsPerSecond, cpuUsPerRequest, non2xx: figures.non2xx, errors: figures.errors + figures.timeouts };
  } finally {
    await stop(child);
    await fs.rm(root, { recursive: true, force: true });
  }
}

/** `rounds` rounds, each starting both variants, the first one alternating; `log` gets one line per start. */
export async function startBenchmark(upstreamUrl: string, rounds: number, load: LoadSettings, log: (line: string) => void): Promise<{ samples: StartSample[]; summary: StartSummary[] }> {
  const samples: StartSample[] = [];
  for (let r = 1; r <= rounds; r++) {
    // Each round starts with the next variant: each goes first, second and last as often as the rounds allow.
    const all = Object.keys(VARIANTS) as Variant[];
    const order = all.map((_, i) => all[(i + r - 1) % all.length]!);
    for (const variant of order) {
      const sample = await startOnce(variant, r, upstreamUrl, load);
      samples.push(sample);
      log(`  round ${r} ${variant.padEnd(8)} /health after ${sample.startMs} ms  ${sample.requestsPerSecond} req/s  ${sample.cpuUsPerRequest} CPU µs/request  helpers: ${sample.helperProcesses.join(', ') || 'none'}${sample.non2xx || sample.errors ? `  (non-2xx ${sample.non2xx}, errors ${sample.errors})` : ''}`);
    }
  }
  const summary = (Object.keys(VARIANTS) as Variant[]).map((variant) => {
    const mine = samples.filter((s) => s.variant === variant);
    return {
      variant,
      command: VARIANTS[variant],
      startMsMedian: median(mine.map((s) => s.startMs)),
      startMsAll: mine.map((s) => s.startMs),
      cpuUsPerRequestMedian: median(mine.map((s) => s.cpuUsPerRequest)),
      requestsPerSecondMedian: median(mine.map((s) => s.requestsPerSecond)),
      rssMbAtHealthMedian: median(mine.map((s) => s.rssMbAtHealth)),
      helperProcesses: [...new Set(mine.flatMap((s) => s.helperProcesses))],
    };
  });
  return { samples, summary };
}
