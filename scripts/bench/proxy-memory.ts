/**
 * `npm run bench:proxy`: what 50 MB through the proxy costs the gateway in
 * memory. The gateway runs as `npm start` runs it (compiled, plain node, its
 * own process, default settings); a local app on 127.0.0.1 streams a 50 MB
 * download and counts a 50 MB upload (neither is ever held whole); the
 * client streams and discards. Per transfer, the gateway's RSS before it
 * (after a warm-up) and its peak during it (Linux VmHWM, reset before each
 * transfer through /proc/<pid>/clear_refs), so the figure is the growth the
 * transfer caused. Rounds alternate download and upload.
 *
 *   npm run bench:proxy                 3 rounds, 50 MB each way
 *   npm run bench:proxy -- --rounds=5 --mb=100
 *
 * BENCH_DEBUG=1 also prints the gateway's heap spaces and external memory
 * (from its /metrics) around each transfer; BENCH_NODE_FLAGS passes flags to
 * the gateway's node (`--max-semi-space-size=2`, say), to see what V8's
 * sizing does to the figures.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'npm run bench:proxy --',
  summary:
    "Measures the gateway's memory around a large download and upload through the proxy: the compiled gateway in its own process (default settings), a local app streaming the bytes, the RSS before each transfer and its peak during it. Reports figures; never fails on memory.",
  options: {
    rounds: { type: 'string' as const, value: '<n>', description: 'rounds, each a download and an upload, alternating their order (default 3)' },
    mb: { type: 'string' as const, value: '<n>', description: 'MB each way (default 50)' },
  },
  examples: ['npm run bench:proxy', 'npm run bench:proxy -- --rounds=5 --mb=100'],
};

const MB = 1024 * 1024;
let ROUNDS = 3;
let SIZE = 50 * MB;
const API_KEY = 'bench-api-key-0123456789abcdef';
const APP_KEY = 'bench-app-key-0123456789';

/** The app: streams SIZE bytes for GET /files/big.bin, counts what a PUT sends, both in 64 KiB pieces without holding them. */
function startApp(): Promise<{ url: string; close: () => Promise<void> }> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = http.createServer((req, res) => {
    if (req.method === 'PUT') {
      let received = 0;
      req.on('data', (piece: Buffer) => (received += piece.length));
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ received })));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(req.url === '/files/big.bin' ? SIZE : 2) });
    if (req.url !== '/files/big.bin') return void res.end('ok');
    let left = SIZE;
    const more = () => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  const close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, close })));
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

/** VmRSS and VmHWM (peak) of a process, in bytes (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Resets the peak (VmHWM) to the current RSS. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** One transfer through the proxy; the client streams and discards. */
function transfer(url: string, method: 'GET' | 'PUT', upload: number): Promise<{ status: number; bytes: number }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${API_KEY}` };
    if (method === 'PUT') Object.assign(headers, { 'content-type': 'application/octet-stream', 'content-length': String(upload) });
    const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method, headers }, (response) => {
      let bytes = 0;
      response.on('data', (piece: Buffer) => (bytes += piece.length));
      response.on('end', () => resolve({ status: response.statusCode!, bytes }));
      response.on('error', reject);
    });
    request.on('error', reject);
    if (method === 'GET') return void request.end();
    const chunk = Buffer.alloc(64 * 1024, 'u');
    let left = upload;
    const more = () => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!request.write(piece)) return void request.once('drain', more);
      }
      request.end();
    };
    more();
  });
}

async function main(): Promise<void> {
  const built = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'scripts/build-if-needed.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building dist/ failed');
  const app = await startApp();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-proxy-'));
  const definitions = path.join(root, 'definitions');
  const files: Record<string, string> = {
    'bigfiles/app.yaml': 'id: bigfiles\nslug: bigfiles\nname: Big files\npublished: 1\n',
    'bigfiles/versions/1/api.yaml': `baseUrl: ${app.url}\nauths:\n  - key\n`,
    'bigfiles/versions/1/auths/key.yaml': "type: ApiKey\nid: key\nname: Key\nin: Header\nparameterName: X-Api-Key\nvalue: '{{apiKey}}'\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n",
    'bigfiles/versions/1/actions/ping.yaml': 'id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\n',
  };
  for (const [file, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(definitions, file)), { recursive: true });
    await fs.writeFile(path.join(definitions, file), text);
  }
  const port = await freePort();
  const gateway = spawn(process.execPath, [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--enable-source-maps', 'dist/engine/main.js'], {
    cwd: PACKAGE_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(root, 'data'),
      DEFINITIONS_DIR: definitions,
      BOOTSTRAP_API_KEY: API_KEY,
      EGRESS_ALLOW: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
      ...(process.env.BENCH_DEBUG ? { METRICS_TOKEN: 'm'.repeat(40) } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let waited = 0; !(await fetch(`${base}/health`).then((r) => r.ok, () => false)); waited += 50) {
      if (waited > 60_000 || gateway.exitCode !== null) throw new Error('the gateway did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const created = await fetch(`${base}/v2/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ appSlug: 'bigfiles', credentials: { apiKey: APP_KEY } }),
    });
    const connectionId = ((await created.json()) as { data: { id: string } }).data.id;
    const proxied = (file: string) => `${base}/v2/proxy/${connectionId}/${file}`;
    // Warm-up: the routes, the plan, the pools, a small transfer each way.
    for (let i = 0; i < 5; i++) {
      await transfer(proxied('ping'), 'GET', 0);
      await transfer(proxied('files/warm.bin'), 'PUT', MB);
    }
    const rows: { round: number; direction: string; status: number; bytes: number; before: number; peak: number; growth: number; seconds: number }[] = [];
    for (let round_ = 1; round_ <= ROUNDS; round_++) {
      for (const direction of round_ % 2 === 1 ? (['download', 'upload'] as const) : (['upload', 'download'] as const)) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        resetPeak(gateway.pid!);
        const before = memory(gateway.pid!).rss;
        const started = performance.now();
        if (process.env.BENCH_DEBUG) console.log(direction, 'before', await heap(base));
        const done = direction === 'download' ? await transfer(proxied('files/big.bin'), 'GET', 0) : await transfer(proxied('files/upload.bin'), 'PUT', SIZE);
        const seconds = (performance.now() - started) / 1000;
        const { peak } = memory(gateway.pid!);
        if (process.env.BENCH_DEBUG) console.log(direction, 'after', await heap(base));
        rows.push({ round: round_, direction, status: done.status, bytes: direction === 'download' ? done.bytes : SIZE, before, peak, growth: peak - before, seconds });
      }
    }
    const load = os.loadavg().map((l) => l.toFixed(2)).join(', ');
    console.log(`== the proxy's memory: ${SIZE / MB} MB each way, ${ROUNDS} rounds alternating, default settings, the gateway compiled (npm start); load average ${load} (${os.cpus().length} CPUs)`);
    console.log(
      table(
        ['round', 'direction', 'status', 'MB', 'RSS before (MB)', 'peak RSS (MB)', 'growth (MB)', 'seconds'],
        rows.map((r) => [r.round, r.direction, r.status, round(r.bytes / MB, 1), round(r.before / MB, 1), round(r.peak / MB, 1), round(r.growth / MB, 1), round(r.seconds, 2)]),
      ),
    );
    for (const direction of ['download', 'upload']) {
      const growths = rows.filter((r) => r.direction === direction).map((r) => r.growth / MB);
      console.log(`${direction}: growth median ${round(median(growths), 1)} MB, max ${round(Math.max(...growths), 1)} MB (target: under 20 MB)`);
    }
    const overall = Math.max(...rows.map((r) => r.peak)) - rows[0]!.before;
    console.log(`all transfers: the highest peak ${round(Math.max(...rows.map((r) => r.peak)) / MB, 1)} MB, ${round(overall / MB, 1)} MB above the RSS before the first (warmed up: ${round(rows[0]!.before / MB, 1)} MB)`);
    const bad = rows.filter((r) => (r.direction === 'download' ? r.status !== 200 || r.bytes !== SIZE : r.status !== 201));
    if (bad.length) throw new Error(`transfers failed: ${JSON.stringify(bad)}`);
  } finally {
    gateway.kill('SIGTERM');
    await new Promise((resolve) => gateway.once('exit', resolve));
    await app.close();
    await fs.rm(root, { recursive: true, force: true });
  }
}

/** A whole number, `least` or more, or the refusal naming the option and what it got. */
function count(name: string, given: string | undefined, fallback: number, least: number): number | string {
  if (given === undefined) return fallback;
  const value = Number(given);
  return Number.isInteger(value) && value >= least ? value : `--${name} must be a whole number, ${least} or more (got ${given})`;
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const rounds = count('rounds', args.values.rounds, 3, 1);
  const mb = count('mb', args.values.mb, 50, 1);
  const refused = [rounds, mb].find((v) => typeof v === 'string');
  if (refused !== undefined) {
    process.stderr.write(`${refused}\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  } else {
    ROUNDS = rounds as number;
    SIZE = (mb as number) * MB;
    await main();
  }
}

async function heap(base: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${'m'.repeat(40)}` } })).text();
  return text
    .split('\n')
    .filter((l) => /^(nodejs_heap_space_size_total_bytes|nodejs_external_memory_bytes|nodejs_heap_size_total_bytes|process_resident_memory_bytes)/.test(l))
    .map((l) => l.replace(/nodejs_heap_space_size_total_bytes\{space="(\w+)"\}/, '$1').replace(/ (\d+)$/, (_m, n) => ` ${(Number(n) / 1048576).toFixed(1)}`))
    .join('; ');
}
