/**
 * What every attack script shares: the real gateway started as its own
 * process (`node --import tsx engine/main.ts`, or dist/engine/main.js when
 * the attack runs compiled; embedded store in a temp
 * DATA_DIR, on 127.0.0.1), a `/health` poller that measures how long the
 * gateway's event loop keeps other callers waiting while an attack runs, and
 * requests with a deadline, so a script never hangs on a stalled gateway.
 *
 * Attacks only ever target 127.0.0.1 and every loop is bounded in count and
 * time. They report figures; they fail (exit 1) only when the gateway answers
 * wrong or dies, never on speed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';

export const ROOT = PACKAGE_ROOT;
/** The gateway started the way this script runs: from source under tsx, or compiled from dist/ (as `npm start` does). */
const GATEWAY_COMMAND = import.meta.url.endsWith('.ts') ? ['--import', 'tsx', 'engine/main.ts'] : ['--enable-source-maps', 'dist/engine/main.js'];
export const ATTACK_API_KEY = 'attack-key-0123456789abcdefghij';

export interface AttackGateway {
  url: string;
  apiKey: string;
  process: ChildProcess;
  dataDir: string;
  definitionsDir: string;
  /** The child's stdout and stderr so far (JSON log lines). */
  output(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it ended and how long SIGTERM took to end it. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null; termMs: number; killed: boolean }>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the gateway as a child process and waits for `/health`. `definitions`
 * (relative path -> file text) replaces the bundled definitions when given;
 * otherwise the repository's `definitions/` is used.
 */
export async function startAttackGateway(options: { env?: Record<string, string>; definitions?: Record<string, string> } = {}): Promise<AttackGateway> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-attack-'));
  const dataDir = path.join(root, 'data');
  let definitionsDir = path.join(ROOT, 'definitions');
  if (options.definitions) {
    definitionsDir = path.join(root, 'definitions');
    for (const [file, text] of Object.entries(options.definitions)) {
      await fs.mkdir(path.dirname(path.join(definitionsDir, file)), { recursive: true });
      await fs.writeFile(path.join(definitionsDir, file), text);
    }
  }
  const port = await freePort();
  const child = spawn(process.execPath, GATEWAY_COMMAND, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEFINITIONS_DIR: definitionsDir,
      BOOTSTRAP_API_KEY: ATTACK_API_KEY,
      LOG_LEVEL: 'warn',
      // Stopped at once: the time SIGTERM takes to end it is about the attack, not a load balancer's drain.
      SHUTDOWN_DRAIN_MS: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited at start (code ${child.exitCode}):\n${output}`);
    const health = await timedFetch(`${url}/health`, {}, 1000);
    if (health.status === 200) break;
    if (performance.now() - started > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`the gateway did not answer /health within 60 s:\n${output}`);
    }
    await sleep(100);
  }
  return {
    url,
    apiKey: ATTACK_API_KEY,
    process: child,
    dataDir,
    definitionsDir,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop(graceMs = 15_000) {
      const t0 = performance.now();
      let killed = false;
      if (child.exitCode === null && child.signalCode === null) {
        const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          killed = true;
          child.kill('SIGKILL');
        }, graceMs);
        await ended;
        clearTimeout(timer);
      }
      await fs.rm(root, { recursive: true, force: true });
      return { code: child.exitCode, signal: child.signalCode, termMs: Math.round(performance.now() - t0), killed };
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface TimedAnswer {
  /** HTTP status, or 0 when no answer came (timeout, reset). */
  status: number;
  ms: number;
  body: any;
  text: string;
  /** Why no answer came: 'timeout', or the network error's message. */
  failure?: string;
}

/** fetch with a deadline: never throws, never waits longer than `timeoutMs`. */
export async function timedFetch(url: string, init: RequestInit = {}, timeoutMs = 30_000): Promise<TimedAnswer> {
  const t0 = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: response.status, ms: performance.now() - t0, body, text };
  } catch (error) {
    const failure = (error as Error).name === 'TimeoutError' ? 'timeout' : ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    return { status: 0, ms: performance.now() - t0, body: undefined, text: '', failure };
  }
}

/** A request to the gateway with its API key and a JSON body. */
export function gatewayCall(gw: Pick<AttackGateway, 'url' | 'apiKey'>, method: string, route: string, body?: unknown, timeoutMs = 30_000, headers: Record<string, string> = {}): Promise<TimedAnswer> {
  return timedFetch(
    gw.url + route,
    {
      method,
      headers: { authorization: `Bearer ${gw.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    },
    timeoutMs,
  );
}

export interface HealthFigures {
  polls: number;
  failed: number;
  p50Ms: number;
  maxMs: number;
}

/**
 * Polls `/health` every `everyMs` (one poll in flight at a time, each with a
 * 2 s deadline) until stopped; the figures say how long other callers waited.
 */
export function pollHealth(url: string, everyMs = 20): { stop(): Promise<HealthFigures> } {
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = await timedFetch(`${url}/health`, {}, 2000);
      if (answer.status === 200) times.push(answer.ms);
      else {
        failed++;
        times.push(answer.ms);
      }
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...times].sort((a, b) => a - b);
      return {
        polls: times.length,
        failed,
        p50Ms: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
        maxMs: round(sorted[sorted.length - 1] ?? 0),
      };
    },
  };
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** One attack's figures, as the index prints them. */
export interface AttackReport {
  attack: string;
  /** One row per case: what was sent, what came back, the figures. */
  rows: Array<Record<string, string | number | boolean>>;
  /** Whether every answer was the one expected (the script exits 1 otherwise). */
  ok: boolean;
  notes?: string[];
}

export interface Attack {
  name: string;
  /** One line: what the attack tries. */
  summary: string;
  run(): Promise<AttackReport>;
}

/** Prints a report as a markdown table. */
export function printReport(report: AttackReport): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`\n## ${report.attack} ${report.ok ? '' : '(WRONG ANSWERS)'}`);
  const columns = [...new Set(report.rows.flatMap((row) => Object.keys(row)))];
  if (columns.length) {
    out(`| ${columns.join(' | ')} |`);
    out(`|${columns.map(() => '---').join('|')}|`);
    for (const row of report.rows) out(`| ${columns.map((c) => String(row[c] ?? '')).join(' | ')} |`);
  }
  for (const note of report.notes ?? []) out(`- ${note}`);
}
