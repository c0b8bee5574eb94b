/** The body of `logs.ts` (which declares the command line), imported only when that file is run: so a spec importing it for its declaration runs nothing. */
import { openSync, closeSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandLine, usageLine } from '../../engine/platform/cli/command-line.ts';
import { cli } from './logs-cli.ts';
import { runChild, startChild } from './child.ts';
import { measure, type LoadTarget } from './load.ts';
import { round, table } from './stats.ts';
import { contextSwitches, cpuMicros } from './process-cpu.ts';
import { osPipe } from './os-pipe.ts';


const args = commandLine(cli);
// --help answered or the command line refused: nothing to run (the exit code is set).
if (!args) process.exit();
const DEFAULTS = { part: 'lines,load', rounds: '2', lines: '100000', duration: '5', warmup: '2', connections: '10', records: '10' };
const values = { ...DEFAULTS, ...Object.fromEntries(Object.entries(args.values).filter(([, v]) => v !== undefined)) } as typeof DEFAULTS;
for (const name of ['rounds', 'lines', 'duration', 'warmup', 'connections', 'records'] as const) {
  if (!(Number(values[name]) >= 0) || values[name].trim() === '') {
    process.stderr.write(`--${name} must be a number, 0 or more (got ${values[name]})\n${usageLine(cli)}\n`);
    process.exit(2);
  }
}
const PARTS = ['lines', 'load'];
const unknownPart = values.part.split(',').find((part) => !PARTS.includes(part.trim()));
if (unknownPart !== undefined) {
  process.stderr.write(`--part takes ${PARTS.join(', ')} (comma-separated; got ${unknownPart || 'an empty one'})\n${usageLine(cli)}\n`);
  process.exit(2);
}
const settings = { connections: Number(values.connections), warmupSeconds: Number(values.warmup), durationSeconds: Number(values.duration) };
const rounds = Number(values.rounds);
const records = Number(values.records);

/** `pipe`: Node's `stdio: 'pipe'` (a socket pair) read by this process; `ospipe`: a pipe of the operating system (mkfifo), as a container runtime or a shell hands one. */
type Sink = 'devnull' | 'file' | 'pipe' | 'ospipe';
interface Variant {
  name: string;
  level: 'info' | 'silent';
  sync: boolean;
  sink: Sink;
  /** The asynchronous destination with batches of this many bytes instead of the gateway's own (4 KiB). */
  batchBytes?: number;
}
const VARIANTS: Variant[] = [
  { name: 'silent (no lines)', level: 'silent', sync: false, sink: 'devnull' },
  ...(['devnull', 'file', 'pipe'] as const).flatMap((sink) => [
    { name: `sync  -> ${sink}`, level: 'info' as const, sync: true, sink },
    { name: `async -> ${sink}`, level: 'info' as const, sync: false, sink },
    { name: `async 32K -> ${sink}`, level: 'info' as const, sync: false, sink, batchBytes: 32 * 1024 },
  ]),
  // On a pipe of the operating system the gateway writes through pipe-writer.ts; beside it, pino's asynchronous destination as before (4 KiB batches).
  { name: 'sync  -> ospipe', level: 'info', sync: true, sink: 'ospipe' },
  { name: 'async -> ospipe', level: 'info', sync: false, sink: 'ospipe' },
  { name: 'sonic 4K -> ospipe', level: 'info', sync: false, sink: 'ospipe', batchBytes: 4096 },
];

const log = (line: string) => process.stdout.write(`${line}\n`);
const parts = new Set(values.part.split(',').map((part) => part.trim()));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : Number.NaN;
};
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-logs-'));
try {
  if (parts.has('lines')) await linesPart();
  if (parts.has('load')) await loadPart();
} finally {
  await fs.rm(tmp, { recursive: true, force: true });
}

/** Lines alone: what one request line costs the event loop, per destination and sink. */
async function linesPart(): Promise<void> {
  const count = Number(values.lines);
  log(
    `lines: ${count} request lines per run, ${rounds} round(s); load average ${os
      .loadavg()
      .map((l) => round(l, 2))
      .join(' ')}, ${os.availableParallelism()} CPUs`,
  );
  const found = new Map<string, { loop: number[]; cpu: number[]; wall: number[]; kb: number[] }>();
  const names: string[] = [];
  for (let round_ = 1; round_ <= rounds; round_++) {
    for (const sink of ['devnull', 'file', 'pipe'] as const) {
      for (const sync of [true, false]) {
        const name = `${sync ? 'sync ' : 'async'} -> ${sink}`;
        if (!names.includes(name)) names.push(name);
        const fd = sink === 'devnull' ? openSync('/dev/null', 'w') : sink === 'file' ? openSync(path.join(tmp, `lines-${round_}.log`), 'w') : null;
        let piped = 0;
        try {
          const result = await runChild<{ eventLoopUsPerLine: number; cpuUsPerLine: number; wallMs: number; kbAllocatedPerLine: number }>('log-lines.ts', {
            env: { BENCH_LINES: String(count), BENCH_LOG_SYNC: sync ? '1' : '0' },
            ...(fd === null ? { onStdout: (chunk: Buffer) => (piped += chunk.length) } : { stdout: fd }),
          });
          const entry = found.get(name) ?? { loop: [], cpu: [], wall: [], kb: [] };
          entry.loop.push(result.eventLoopUsPerLine);
          entry.cpu.push(result.cpuUsPerLine);
          entry.wall.push(result.wallMs);
          entry.kb.push(result.kbAllocatedPerLine);
          found.set(name, entry);
          log(
            `  round ${round_}  ${name.padEnd(15)} ${round(result.eventLoopUsPerLine, 2)} µs/line on the event loop  ${round(result.cpuUsPerLine, 2)} µs CPU/line  ${round(result.wallMs, 0)} ms until written  ${round(result.kbAllocatedPerLine, 2)} KB allocated/line${sink === 'pipe' ? `  (${piped} bytes read)` : ''}`,
          );
        } finally {
          if (fd !== null) closeSync(fd);
        }
      }
    }
  }
  log('');
  log(
    table(
      ['destination', 'event loop µs/line', 'CPU µs/line', 'ms until all written', 'KB allocated/line'],
      names.map((name) => {
        const r = found.get(name)!;
        return [name, String(round(median(r.loop), 2)), String(round(median(r.cpu), 2)), String(round(median(r.wall), 0)), String(round(median(r.kb), 2))];
      }),
    ),
  );
  log('');
}

/** The gateway under load at LOG_LEVEL=info, one request line per request, per destination and sink. */
async function loadPart(): Promise<void> {
  const upstream = await startChild<{ url: string }>('upstream.ts');
  const results = new Map<string, { rps: number[]; cpu: number[]; switches: number[]; bytesPerRequest: number[] }>();
  log(
    `logs benchmark: ${rounds} round(s), ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s runs, ${records} records per run; load average ${os
      .loadavg()
      .map((l) => round(l, 2))
      .join(' ')}, ${os.availableParallelism()} CPUs`,
  );
  try {
    for (let round_ = 1; round_ <= rounds; round_++) {
      for (const variant of VARIANTS) {
        const file = path.join(tmp, `gateway-${round_}-${variant.sink}.log`);
        const pipe = variant.sink === 'ospipe' ? osPipe(tmp) : null;
        const fd = variant.sink === 'devnull' ? openSync('/dev/null', 'w') : variant.sink === 'file' ? openSync(file, 'w') : pipe ? pipe.writeFd : null;
        let piped = 0;
        // The pipe's reader takes every byte as it comes, as a container runtime does.
        pipe?.readable.on('data', (chunk: Buffer) => (piped += chunk.length));
        const gateway = await startChild<{ url: string; path: string; headers: Record<string, string>; connectionId: string }>('gateway.ts', {
          env: { BENCH_UPSTREAM_URL: upstream.info.url, BENCH_LOG_LEVEL: variant.level, BENCH_LOG_SYNC: variant.sync ? '1' : '0', ...(variant.batchBytes ? { BENCH_LOG_BATCH_BYTES: String(variant.batchBytes) } : {}) },
          ...(fd === null ? { onStdout: (chunk: Buffer) => (piped += chunk.length) } : { stdout: fd }),
        });
        if (pipe) closeSync(pipe.writeFd);
        try {
          const target: LoadTarget = {
            name: variant.name,
            url: gateway.info.url + gateway.info.path,
            method: 'POST',
            headers: gateway.info.headers,
            body: JSON.stringify({ connectionId: gateway.info.connectionId, arguments: { limit: records } }),
          };
          const probe = await fetch(target.url, { method: 'POST', headers: target.headers!, body: target.body! });
          if (probe.status !== 200) throw new Error(`${variant.name}: the gateway answered ${probe.status}: ${await probe.text()}`);
          await probe.text();
          if (settings.warmupSeconds > 0) await measure(target, { ...settings, durationSeconds: settings.warmupSeconds, warmupSeconds: 0 });
          const before = cpuMicros(gateway.process.pid!);
          const switchesBefore = contextSwitches(gateway.process.pid!);
          const startBytes = variant.sink === 'file' ? (await fs.stat(file)).size : piped;
          const figures = await measure(target, { ...settings, warmupSeconds: 0 });
          const cpu = (cpuMicros(gateway.process.pid!) - before) / Math.max(1, figures.requests);
          const switches = (contextSwitches(gateway.process.pid!) - switchesBefore) / Math.max(1, figures.requests);
          const endBytes = variant.sink === 'file' ? (await fs.stat(file)).size : piped;
          const entry = results.get(variant.name) ?? { rps: [], cpu: [], switches: [], bytesPerRequest: [] };
          entry.rps.push(figures.requestsPerSecond);
          entry.cpu.push(cpu);
          entry.switches.push(switches);
          if (variant.sink !== 'devnull') entry.bytesPerRequest.push((endBytes - startBytes) / Math.max(1, figures.requests));
          results.set(variant.name, entry);
          log(
            `  round ${round_}  ${variant.name.padEnd(20)} ${String(figures.requestsPerSecond).padStart(6)} req/s  ${String(round(cpu, 0)).padStart(5)} µs CPU/req  ${round(switches, 2)} context switches/req  p50 ${figures.p50Ms} ms  non-2xx ${figures.non2xx}  errors ${figures.errors}`,
          );
        } finally {
          await gateway.stop();
          if (pipe) pipe.readable.destroy();
          else if (fd !== null) closeSync(fd);
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  const silent = median(results.get(VARIANTS[0]!.name)!.rps);
  log('');
  log(
    table(
      ['destination', 'req/s (median)', 'of silent', 'CPU µs/req (median)', 'context switches/req (median)', 'log bytes/req'],
      VARIANTS.map((v) => {
        const r = results.get(v.name)!;
        return [
          v.name,
          String(round(median(r.rps), 0)),
          `${round((median(r.rps) / silent) * 100, 1)}%`,
          String(round(median(r.cpu), 0)),
          String(round(median(r.switches), 2)),
          r.bytesPerRequest.length ? String(round(median(r.bytesPerRequest), 0)) : '-',
        ];
      }),
    ),
  );
  log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => round(l, 2))
      .join(' ')}`,
  );
}
