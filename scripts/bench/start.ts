/**
 * The production start against the development one, side by side in one
 * run: `npm start`'s command (plain node on dist/) and `npm run dev`'s (tsx
 * on the sources), each started as its own process on an empty DATA_DIR with
 * the bench app. Per start: the time from spawn to the first 200 of /health
 * and the peak RSS until then (VmHWM), the helper processes it runs (tsx:
 * esbuild); then the same figures for a restart on that DATA_DIR, and a load
 * run against the restarted gateway's bench action with its CPU per request. Rounds rotate
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
/** A variant started: its command and the checkout it runs in (`baseline`: --baseline's, npm start's command without its prestart). */
export type Variant = keyof typeof VARIANTS | 'baseline';
interface Started {
  variant: Variant;
  command: string;
  cwd: string;
}

export interface StartSample {
  variant: Variant;
  round: number;
  /** Spawn to the first 200 of /health: on an empty DATA_DIR, then again on the same DATA_DIR. */
  startMs: number;
  restartMs: number;
  /** Processes the gateway process had started (and still ran) when /health first answered. */
  helperProcesses: string[];
  rssMbAtHealth: number;
  /** The peak RSS (VmHWM) until /health answered: on the first start, and on the restart. */
  peakRssMbAtHealth: number;
  restartPeakRssMbAtHealth: number;
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
  peakRssMbAtHealthMedian: number;
  restartMsMedian: number;
  restartPeakRssMbAtHealthMedian: number;
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

/** Peak RSS of a process so far (Linux VmHWM), in MB: what a container's memory limit must allow. */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
  return round(Number(line.split(/\s+/)[1]) / 1024, 1);
}

interface Launched {
  child: ChildProcess;
  url: string;
  startMs: number;
}

/** The variant's command started on `root`'s DATA_DIR and definitions, waited for until /health answers 200. */
async function launch({ variant, command: line, cwd }: Started, root: string): Promise<Launched> {
  const port = await freePort();
  const [command, ...args] = line.split(' ');
  if (command !== 'node') throw new Error(`${variant} runs ${command}, not node`);
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(root, 'data'),
      DEFINITIONS_DIR: path.join(root, 'definitions'),
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
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${variant} exited with ${child.exitCode}: ${stderr}`);
      if (performance.now() - started > 60_000) throw new Error(`${variant} did not answer /health within 60 s: ${stderr}`);
      const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
      if (ok) return { child, url, startMs: round(performance.now() - started, 0) };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/**
 * One sample: a first start on an empty DATA_DIR (its time and peak RSS to /health), stopped, then a restart
 * on the same DATA_DIR (the same figures), which is then loaded.
 */
async function startOnce(started: Started, round_: number, upstreamUrl: string, load: LoadSettings): Promise<StartSample> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-start-'));
  await writeFiles(path.join(root, 'definitions'), benchAppFiles(upstreamUrl));
  let child: ChildProcess | undefined;
  try {
    const { variant } = started;
    const first = await launch(started, root);
    child = first.child;
    const helperProcesses = children(child.pid!);
    const rssMbAtHealth = rssMb(child.pid!);
    const peakRssMbAtHealth = peakRssMb(child.pid!);
    await stop(child);
    const restart = await launch(started, root);
    child = restart.child;
    const restartPeakRssMbAtHealth = peakRssMb(child.pid!);
    const { url } = restart;
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
    return {
      variant,
      round: round_,
      startMs: first.startMs,
      restartMs: restart.startMs,
      helperProcesses,
      rssMbAtHealth,
      peakRssMbAtHealth,
      restartPeakRssMbAtHealth,
      requestsPerSecond: figures.requestsPerSecond,
      cpuUsPerRequest,
      non2xx: figures.non2xx,
      errors: figures.errors + figures.timeouts,
    };
  } finally {
    if (child) await stop(child);
    await fs.rm(root, { recursive: true, force: true });
  }
}

/**
 * `rounds` rounds, each starting every variant (and the baseline checkout's compiled gateway, given one), the
 * first one alternating; `log` gets one line per start.
 */
export async function startBenchmark(
  upstreamUrl: string,
  rounds: number,
  load: LoadSettings,
  log: (line: string) => void,
  baselineDir?: string,
): Promise<{ samples: StartSample[]; summary: StartSummary[] }> {
  const all: Started[] = (Object.keys(VARIANTS) as (keyof typeof VARIANTS)[]).map((variant) => ({ variant, command: VARIANTS[variant], cwd: PACKAGE_ROOT }));
  if (baselineDir) all.push({ variant: 'baseline', command: VARIANTS.compiled, cwd: baselineDir });
  const samples: StartSample[] = [];
  for (let r = 1; r <= rounds; r++) {
    // Each round starts with the next variant: each goes first, second and last as often as the rounds allow.
    const order = all.map((_, i) => all[(i + r - 1) % all.length]!);
    for (const started of order) {
      const sample = await startOnce(started, r, upstreamUrl, load);
      samples.push(sample);
      log(`  round ${r} ${started.variant.padEnd(8)} /health after ${sample.startMs} ms (peak RSS ${sample.peakRssMbAtHealth} MB), restart ${sample.restartMs} ms (${sample.restartPeakRssMbAtHealth} MB)  ${sample.requestsPerSecond} req/s  ${sample.cpuUsPerRequest} CPU µs/request  helpers: ${sample.helperProcesses.join(', ') || 'none'}${sample.non2xx || sample.errors ? `  (non-2xx ${sample.non2xx}, errors ${sample.errors})` : ''}`);
    }
  }
  const summary = all.map(({ variant, command, cwd }) => {
    const mine = samples.filter((s) => s.variant === variant);
    return {
      variant,
      command: cwd === PACKAGE_ROOT ? command : `${command} (in ${cwd})`,
      startMsMedian: median(mine.map((s) => s.startMs)),
      startMsAll: mine.map((s) => s.startMs),
      cpuUsPerRequestMedian: median(mine.map((s) => s.cpuUsPerRequest)),
      requestsPerSecondMedian: median(mine.map((s) => s.requestsPerSecond)),
      rssMbAtHealthMedian: median(mine.map((s) => s.rssMbAtHealth)),
      peakRssMbAtHealthMedian: median(mine.map((s) => s.peakRssMbAtHealth)),
      restartMsMedian: median(mine.map((s) => s.restartMs)),
      restartPeakRssMbAtHealthMedian: median(mine.map((s) => s.restartPeakRssMbAtHealth)),
      helperProcesses: [...new Set(mine.flatMap((s) => s.helperProcesses))],
    };
  });
  return { samples, summary };
}
