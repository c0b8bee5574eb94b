/** The body of `tracing-cost.ts` (which declares the command line), imported only when that file is run: so a spec importing it for its declaration runs nothing. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { commandLine, usageLine } from '../../engine/platform/cli/command-line.ts';
import { cli } from './tracing-cost-cli.ts';
import { runChild, startChild, type Child } from './child.ts';
import { measure, type LoadTarget } from './load.ts';
import { cpuMicros } from './process-cpu.ts';
import { median, round, table } from './stats.ts';


const args = commandLine(cli);
// --help answered or the command line refused: nothing to run (the exit code is set).
if (!args) process.exit();
const number = (flag: 'rounds' | 'duration' | 'warmup' | 'connections' | 'records' | 'runs', fallback: number) => {
  const given = args.values[flag];
  if (given === undefined) return fallback;
  if (given.trim() === '' || !(Number(given) >= 0)) {
    process.stderr.write(`--${flag} must be a number, 0 or more (got ${given})\n${usageLine(cli)}\n`);
    process.exit(2);
  }
  return Number(given);
};
const settings = {
  rounds: number('rounds', 3),
  durationSeconds: number('duration', 5),
  warmupSeconds: number('warmup', 1),
  connections: number('connections', 10),
  records: number('records', 10),
  runs: number('runs', 20_000),
};
const PARTS = ['load', 'instrumentation'];
const only = new Set((args.values.only ?? PARTS.join(',')).split(','));
const unknownPart = [...only].find((part) => !PARTS.includes(part));
if (unknownPart !== undefined) {
  process.stderr.write(`--only takes ${PARTS.join(', ')} (got ${unknownPart})\n${usageLine(cli)}\n`);
  process.exit(2);
}
const log = (line: string) => process.stdout.write(`${line}\n`);

interface GatewayInfo {
  url: string;
  path: string;
  headers: Record<string, string>;
  connectionId: string;
}

/** A collector stand-in: answers every OTLP/HTTP export 200 and counts the spans in it. */
async function startSink(): Promise<{ url: string; spans: () => number; close: () => Promise<void> }> {
  let spans = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += String(chunk)));
    req.on('end', () => {
      try {
        for (const resource of JSON.parse(text).resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
      } catch {
        /* not JSON: counted as nothing */
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => spans, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function loadPart(sink: Awaited<ReturnType<typeof startSink>>): Promise<void> {
  const children: Child<any>[] = [];
  try {
    const upstream = await startChild<{ url: string }>('upstream.ts');
    children.push(upstream);
    const env = { BENCH_UPSTREAM_URL: upstream.info.url };
    const traced = { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
    // The SDK's defaults otherwise (batch processor: 512 spans a batch, every 5 s). Not sampled: the SDK and its context still run, no span is recorded.
    const kinds = [
      { name: 'tracing off', env: { OTEL_SDK_DISABLED: 'true' } },
      { name: 'tracing on, sampled (always_on)', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_on' } },
      { name: 'tracing on, not sampled (always_off)', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_off' } },
    ];
    const target = (name: string, gateway: Child<GatewayInfo>): LoadTarget => ({
      name,
      url: `${gateway.info.url}${gateway.info.path}`,
      method: 'POST',
      headers: gateway.info.headers,
      body: JSON.stringify({ connectionId: gateway.info.connectionId, arguments: { limit: settings.records } }),
    });
    const variants: { name: string; child: Child<GatewayInfo>; target: LoadTarget; cpu: number[]; rps: number[]; p50: number[] }[] = [];
    for (const kind of kinds) {
      const child = await startChild<GatewayInfo>('gateway.ts', { env: { ...env, ...kind.env } });
      children.push(child);
      variants.push({ name: kind.name, child, target: target(kind.name, child), cpu: [] as number[], rps: [] as number[], p50: [] as number[] });
    }
    log(`tracing cost: ${settings.rounds} rounds of ${settings.durationSeconds} s per variant, ${settings.connections} connections, ${settings.records} records; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((l) => round(l, 2)).join(' ')}`);
    for (let round_ = 1; round_ <= settings.rounds; round_++) {
      for (const variant of variants) {
        if (settings.warmupSeconds > 0) await measure(variant.target, { connections: settings.connections, warmupSeconds: 0, durationSeconds: settings.warmupSeconds });
        const before = cpuMicros(variant.child.process.pid!);
        const figures = await measure(variant.target, { connections: settings.connections, warmupSeconds: 0, durationSeconds: settings.durationSeconds });
        // A stray non-2xx on a loaded machine is reported, not fatal; a variant that answers nothing right is.
        if (figures.requests === 0) throw new Error(`${variant.name}: no 2xx answer (${figures.non2xx} non-2xx answers, ${figures.errors} errors)`);
        variant.cpu.push((cpuMicros(variant.child.process.pid!) - before) / Math.max(1, figures.requests));
        variant.rps.push(figures.requestsPerSecond);
        variant.p50.push(figures.p50Ms);
        log(`  round ${round_}  ${variant.name.padEnd(38)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.p50Ms} ms  CPU ${round(variant.cpu.at(-1)!, 0)} µs/run${figures.non2xx || figures.errors ? `  (non-2xx ${figures.non2xx}, errors ${figures.errors})` : ''}`);
      }
    }
    log('');
    // Each round's difference (against off, measured back to back) cancels most of what a busy machine adds to all.
    log(
      table(
        ['variant', 'req/s (median)', 'p50 ms (median)', 'gateway CPU µs per run (median)', 'more than off, per round (median)'],
        variants.map((v) => [v.name, median(v.rps), median(v.p50), round(median(v.cpu), 0), round(median(v.cpu.map((cpu, i) => cpu - variants[0]!.cpu[i]!)), 0)]),
      ),
    );
    log(`load average at the end ${os.loadavg().map((l) => round(l, 2)).join(' ')}; the sink received ${sink.spans()} spans in all.`);
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

/** The spans of one run by themselves, each variant in a fresh process, the variants alternating round after round. */
async function instrumentationPart(sink: Awaited<ReturnType<typeof startSink>>): Promise<void> {
  // A queue that holds every span: runs come faster than a real load, and a full queue drops spans, whose export would go uncounted.
  const traced = { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_MAX_QUEUE_SIZE: '200000' };
  const variants: { name: string; env: Record<string, string>; cpu: number[]; spans: number }[] = [
    { name: 'off (null checks around work that does nothing)', env: { OTEL_SDK_DISABLED: 'true' }, cpu: [] as number[], spans: 0 },
    { name: 'no instrumentation at all (the same work)', env: { OTEL_SDK_DISABLED: 'true', BENCH_BARE: '1' }, cpu: [] as number[], spans: 0 },
    { name: 'on, sampled (always_on): 4 spans, OTLP/HTTP export included', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_on' }, cpu: [] as number[], spans: 0 },
    { name: 'on, not sampled (always_off): traceparent still sent', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_off' }, cpu: [] as number[], spans: 0 },
  ];
  log(`instrumentation alone: ${settings.rounds} rounds of ${settings.runs} runs per variant (after 2000 runs of warm-up); load average ${os.loadavg().map((l) => round(l, 2)).join(' ')}`);
  for (let round_ = 1; round_ <= settings.rounds; round_++) {
    const line: string[] = [];
    for (const variant of variants) {
      const spansBefore = sink.spans();
      const { cpuUsPerRun } = await runChild<{ cpuUsPerRun: number }>('tracing-instrumentation.ts', { env: { BENCH_RUNS: String(settings.runs), ...variant.env } });
      variant.cpu.push(cpuUsPerRun);
      variant.spans = (sink.spans() - spansBefore) / (settings.runs + 2_000);
      line.push(`${round(cpuUsPerRun, 1)} µs/run (${round(variant.spans, 2)} spans exported per run)`);
    }
    log(`  round ${round_}  ${line.join('  |  ')}`);
  }
  log('');
  log(
    table(
      ['variant', 'CPU µs per run (median)', 'more than off, per round (median)'],
      variants.map((variant) => [variant.name, round(median(variant.cpu), 1), round(median(variant.cpu.map((cpu, i) => cpu - variants[0]!.cpu[i]!)), 1)]),
    ),
  );
  log(`load average at the end ${os.loadavg().map((l) => round(l, 2)).join(' ')}`);
}

const sink = await startSink();
try {
  if (only.has('instrumentation')) await instrumentationPart(sink);
  if (only.has('load')) await loadPart(sink);
} finally {
  await sink.close();
}
