/**
 * `npm run bench`: the gateway's cost side by side with a direct call and a
 * bare proxy, the mapping cost alone, and definition loading at scale. One
 * process tree, one run; it reports figures and never fails on speed (it
 * exits non-zero only when something does not work: a target answering
 * wrong, a generated tree that does not load).
 *
 *   npm run bench                       # full run (half an hour on 2 cores)
 *   npm run bench -- --quick            # smoke run: short loads, 100 x 30 tree
 *   npm run bench -- --only=load,mapping,scale
 *   npm run bench -- --only=load,slow --rounds=3 --baseline=../main   # this gateway against another checkout's, same rounds
 *   npm run bench -- --only=slow --slow-connections=64,512     # the 100 ms upstream at some client counts only
 *   npm run bench -- --only=start --rounds=5   # npm start (compiled) against npm run dev (tsx), side by side
 *   npm run bench -- --only=store --store-records=100000   # the embedded store at scale (not in the default run: minutes)
 *   npm run bench -- --duration=5 --warmup=2 --connections=10 --latency-duration=3
 *   npm run bench -- --apps=1000 --actions=30 --reloads=5 --debounce=150
 *   npm run bench -- --cpu-prof=gateway    # or proxy, scale: profiles into .tmp/profiles
 *   npm run bench -- --out=bench-results.json
 *
 * Every flag has an env twin: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_LATENCY_DURATION,
 * BENCH_APPS, BENCH_ACTIONS, BENCH_RELOADS, BENCH_DEBOUNCE_MS, BENCH_MAPPING_MS, BENCH_ROUNDS, BENCH_STORE_RECORDS,
 * BENCH_RECORDS, BENCH_LOG_LEVELS, BENCH_SLOW_CONNECTIONS, BENCH_OUT.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import { runChild, startChild, type Child } from './child.ts';
import { measure, type LoadTarget } from './load.ts';
import { costTargets, failureOf, orderIn, PROXY, slowTargets, summarise, type LoadMeasure, type Round, type RoundsSummary, type Side, type Target } from './load-rounds.ts';
import type { MappingCost } from './mapping-cost.ts';
import { RECORD_COUNTS } from './records.ts';
import type { ColdResult, ScaleResult } from './scale.ts';
import type { StoreResult } from './store.ts';
import { generateTree } from './scale-tree.ts';
import { startBenchmark } from './start.ts';
import { median, round, table } from './stats.ts';
import { commandLine, isEntry, usageLine, type CliValues } from '../../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'npm run bench --',
  summary:
    'Measures the gateway next to a direct call and a bare proxy, the mapping cost alone, and definition loading at scale, and reports figures (bench-results.json); never fails on speed. Every number option has an env twin (BENCH_DURATION, ...).',
  options: {
    quick: { type: 'boolean' as const, description: 'smoke run: short loads, a 100 x 30 tree' },
    only: { type: 'string' as const, value: '<parts>', description: 'any of load,slow,budget,mapping,scale,start,store (comma-separated; default all but store)' },
    duration: { type: 'string' as const, value: '<s>', description: 'seconds of each measured load (BENCH_DURATION; 5, quick 1)' },
    warmup: { type: 'string' as const, value: '<s>', description: 'seconds of warm-up before each (BENCH_WARMUP; 2, quick 0.5)' },
    connections: { type: 'string' as const, value: '<n>', description: 'concurrent connections (BENCH_CONNECTIONS; 10)' },
    'latency-duration': { type: 'string' as const, value: '<s>', description: 'seconds of the one-connection latency pass (BENCH_LATENCY_DURATION; 3, quick 1)' },
    apps: { type: 'string' as const, value: '<n>', description: 'apps in the generated tree (BENCH_APPS; 1000, quick 100)' },
    actions: { type: 'string' as const, value: '<n>', description: 'actions per app (BENCH_ACTIONS; 30)' },
    reloads: { type: 'string' as const, value: '<n>', description: 'reloads measured (BENCH_RELOADS; 3, quick 2)' },
    debounce: { type: 'string' as const, value: '<ms>', description: 'the reload debounce (BENCH_DEBOUNCE_MS; the gateway default)' },
    'mapping-ms': { type: 'string' as const, value: '<ms>', description: 'time spent on each mapping cost (BENCH_MAPPING_MS; 400, quick 50)' },
    'store-records': { type: 'string' as const, value: '<n>', description: 'end users, connections and installations each in the store part (BENCH_STORE_RECORDS; 100000, quick 10000)' },
    rounds: { type: 'string' as const, value: '<n>', description: 'rounds of the load part (proxy and gateway side by side, order alternating; medians) and of the start part (BENCH_ROUNDS; 5, quick 2)' },
    'scale-rounds': { type: 'string' as const, value: '<n>', description: 'rounds of the scale part, each one cold load with the definitions cache off, one restarting from it warm and one first start with it empty (BENCH_SCALE_ROUNDS; 3, quick 1)' },
    'cpu-prof': { type: 'string' as const, value: '<target>', description: 'profile gateway, proxy or scale into .tmp/profiles' },
    records: { type: 'string' as const, value: '<list>', description: 'record counts the load part measures, any of 1,10,100,1000,10000 (BENCH_RECORDS; default all; the cost targets are read at 10 and 100)' },
    'log-levels': { type: 'string' as const, value: '<list>', description: "the gateway's LOG_LEVEL in the load and slow parts, each its own process side by side (BENCH_LOG_LEVELS; info,silent: info is the default, the targets are read on it)" },
    'slow-connections': { type: 'string' as const, value: '<list>', description: 'client connections of the slow part, against a 100 ms upstream (BENCH_SLOW_CONNECTIONS; 1,64,512,2048)' },
    pin: {
      type: 'boolean' as const,
      description:
        'with --only=load,slow: pins this process (the load generator) and the upstream to the first CPU, and every thread of each measured target (the proxy, the gateways) to the last (taskset; Linux, 2 CPUs or more): left to the scheduler, the CPU per request of a target moves with where its threads run',
    },
    'gateway-node-flags': { type: 'string' as const, value: '<flags>', description: "node flags for the gateways of the load and slow parts, not the proxy's (BENCH_GATEWAY_NODE_FLAGS; e.g. --max-semi-space-size=64)" },
    baseline: { type: 'string' as const, value: '<dir>', description: "another checkout whose gateway the load, slow and start parts measure in the same rounds, for a before/after in one run (compiled: build it first)" },
    'baseline-node-flags': { type: 'string' as const, value: '<flags>', description: "node flags for the baseline's gateways instead of --gateway-node-flags (BENCH_BASELINE_NODE_FLAGS; with --baseline=. a node flag against none, same rounds)" },
    out: { type: 'string' as const, value: '<file>', description: 'where the figures go (BENCH_OUT; bench-results.json)' },
  },
  examples: ['npm run bench -- --quick', 'npm run bench -- --only=load,mapping --duration=5', 'npm run bench -- --only=load --cpu-prof=gateway'],
};

const NUMBERS = ['duration', 'warmup', 'connections', 'latency-duration', 'apps', 'actions', 'reloads', 'debounce', 'mapping-ms', 'rounds', 'scale-rounds', 'store-records'] as const;
/** The parts a plain run measures; `store` (minutes at 100,000 records) only when asked for. */
const DEFAULT_PARTS = ['load', 'slow', 'budget', 'mapping', 'scale', 'start'];
const LOG_LEVELS = ['info', 'silent', 'warn', 'error', 'debug'];
const SLOW_CONNECTIONS = [1, 64, 512, 2048];
const PARTS = [...DEFAULT_PARTS, 'store'];
/** The machine's CPUs, read before --pin narrows this process to one (availableParallelism follows the affinity). */
const CPUS = os.availableParallelism();

/** The options a run goes by, or what is wrong with them (the usage line follows it). */
function settingsFrom(values: CliValues<typeof cli.options>) {
  for (const name of NUMBERS) {
    const value = values[name];
    if (value !== undefined && !(Number(value) >= 0 && value.trim() !== '')) return `--${name} must be a number, 0 or more (got ${value})`;
  }
  const parts = (values.only ?? DEFAULT_PARTS.join(',')).split(',');
  const unknownPart = parts.find((part) => !PARTS.includes(part));
  if (unknownPart !== undefined) return `--only takes ${PARTS.join(', ')} (got ${unknownPart})`;
  if (values['cpu-prof'] !== undefined && !['gateway', 'proxy', 'scale'].includes(values['cpu-prof'])) return `--cpu-prof takes gateway, proxy or scale (got ${values['cpu-prof']})`;
  const records = (values.records ?? process.env.BENCH_RECORDS ?? RECORD_COUNTS.join(',')).split(',').map(Number);
  const unknownCount = records.find((n) => !(RECORD_COUNTS as readonly number[]).includes(n));
  if (unknownCount !== undefined) return `--records takes any of ${RECORD_COUNTS.join(', ')} (got ${values.records ?? process.env.BENCH_RECORDS})`;
  const logLevels = (values['log-levels'] ?? process.env.BENCH_LOG_LEVELS ?? 'info,silent').split(',');
  const unknownLevel = logLevels.find((level) => !LOG_LEVELS.includes(level));
  if (unknownLevel !== undefined) return `--log-levels takes any of ${LOG_LEVELS.join(', ')} (got ${unknownLevel})`;
  const slowConnections = (values['slow-connections'] ?? process.env.BENCH_SLOW_CONNECTIONS ?? SLOW_CONNECTIONS.join(',')).split(',').map(Number);
  if (slowConnections.some((n) => !(Number.isInteger(n) && n >= 1 && n <= 10_000))) return `--slow-connections takes counts from 1 to 10000 (got ${values['slow-connections'] ?? process.env.BENCH_SLOW_CONNECTIONS})`;
  const gatewayNodeFlags = (values['gateway-node-flags'] ?? process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const notFlag = gatewayNodeFlags.find((flag) => !flag.startsWith('--'));
  if (notFlag !== undefined) return `--gateway-node-flags takes node flags, each starting with -- (got ${notFlag})`;
  const baselineFlagsGiven = values['baseline-node-flags'] ?? process.env.BENCH_BASELINE_NODE_FLAGS;
  const baselineNodeFlags = baselineFlagsGiven === undefined ? gatewayNodeFlags : baselineFlagsGiven.split(' ').filter(Boolean);
  const notBaselineFlag = baselineNodeFlags.find((flag) => !flag.startsWith('--'));
  if (notBaselineFlag !== undefined) return `--baseline-node-flags takes node flags, each starting with -- (got ${notBaselineFlag})`;
  if (baselineFlagsGiven !== undefined && values.baseline === undefined) return '--baseline-node-flags needs --baseline=<dir>';
  if (values.pin === true && (process.platform !== 'linux' || CPUS < 2)) return `--pin needs Linux and 2 CPUs or more (here: ${process.platform}, ${CPUS} CPUs)`;
  // The other parts' children would inherit this process's CPU, all of them on one: --pin is for the side-by-side loads.
  if (values.pin === true && parts.some((part) => part !== 'load' && part !== 'slow')) return `--pin measures the load and slow parts only: add --only=load,slow (or one of them)`;
  const quick = values.quick === true;
  const setting = (flag: (typeof NUMBERS)[number], env: string, full: number, smoke: number) => Number(values[flag] ?? process.env[env] ?? (quick ? smoke : full));
  return {
    settings: {
      quick,
      connections: setting('connections', 'BENCH_CONNECTIONS', 10, 10),
      warmupSeconds: setting('warmup', 'BENCH_WARMUP', 2, 0.5),
      durationSeconds: setting('duration', 'BENCH_DURATION', 5, 1),
      /** The latency pass: one connection, so p50 is the time of one request and not a queue's. */
      latencyDurationSeconds: setting('latency-duration', 'BENCH_LATENCY_DURATION', 3, 1),
      apps: setting('apps', 'BENCH_APPS', 1000, 100),
      actions: setting('actions', 'BENCH_ACTIONS', 30, 30),
      reloads: setting('reloads', 'BENCH_RELOADS', 3, 2),
      mappingMs: setting('mapping-ms', 'BENCH_MAPPING_MS', 400, 50),
      debounceMs: values.debounce ?? process.env.BENCH_DEBOUNCE_MS,
      /** The load part: rounds of the proxy and the gateway side by side; the start part: rounds of one compiled and one tsx start each. */
      rounds: setting('rounds', 'BENCH_ROUNDS', 5, 2),
      /** The scale part: rounds of a cold load with the cache off and one restarting from the warm cache, each its own process. */
      scaleRounds: setting('scale-rounds', 'BENCH_SCALE_ROUNDS', 3, 1),
      /** The store part: end users, connections and installations each (store-seed.ts). */
      storeRecords: setting('store-records', 'BENCH_STORE_RECORDS', 100_000, 10_000),
    },
    only: new Set(parts),
    /** The record counts the load part measures (--records). */
    recordCounts: RECORD_COUNTS.filter((n) => records.includes(n)),
    /** The gateway's LOG_LEVEL of each gateway process the load and slow parts measure (--log-levels). */
    logLevels: [...new Set(logLevels)],
    /** Client connections of the slow part (--slow-connections). */
    slowConnections,
    profile: values['cpu-prof'],
    /** Node flags of the load and slow parts' gateways (--gateway-node-flags). */
    gatewayNodeFlags,
    /** Node flags of the baseline's gateways (--baseline-node-flags; --gateway-node-flags when not given). */
    baselineNodeFlags,
    /** The CPU each measured target is pinned to (--pin), the load generator and the upstream taking the first. */
    pinTo: values.pin === true ? CPUS - 1 : undefined,
    baselineDir: values.baseline === undefined ? undefined : path.resolve(values.baseline),
    out: path.resolve(values.out ?? process.env.BENCH_OUT ?? 'bench-results.json'),
  };
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
const chosen = args ? settingsFrom(args.values) : null;
if (typeof chosen === 'string') {
  process.stderr.write(`${chosen}\n${usageLine(cli)}\n`);
  process.exitCode = 2;
}
const run = chosen !== null && typeof chosen !== 'string' ? chosen : null;
// Read by the parts below only when the bench runs (run !== null).
const { settings, only, profile, out, baselineDir, recordCounts, logLevels, slowConnections, gatewayNodeFlags, baselineNodeFlags, pinTo } = run ?? ({} as Exclude<ReturnType<typeof settingsFrom>, string>);
/** How the lines name the machine's CPUs (and whether the targets were pinned). */
const onCpus = `on ${CPUS} CPUs${pinTo === undefined ? '' : ', pinned'}`;
/** The budget part: µs of work added to each of the bare proxy's requests. */
const BURNS_US = [0, 50, 100, 200, 400];
const profileDir = path.resolve('.tmp/profiles');
const profiled = (name: string) => (profile === name ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);

const log = (line: string) => process.stdout.write(`${line}\n`);

interface LoadResult extends RoundsSummary {
  connections: number;
  /** The 1-, 5- and 15-minute load averages when the part started and when it ended. */
  loadAverage: { start: number[]; end: number[] };
  /** Every round as measured, invalid ones included. */
  measured: Round[];
}

/** The bench gateway of another checkout, compiled as this bench's own (its dist/, which must be built). */
function baselineGatewayFile(dir: string): string {
  const file = path.join(dir, 'dist/scripts/bench/gateway.js');
  if (!existsSync(file)) throw new Error(`--baseline: ${file} does not exist (build that checkout first: npm run build)`);
  return file;
}

/** One request to each target, checking it answers 200 with N records, before any load (a target that cannot is reported, and measured anyway: its failures are figures too). */
async function check(target: LoadTarget, records: number, count: (body: any) => number): Promise<string | null> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers ?? {}, ...(target.body ? { body: target.body } : {}) });
  const text = await response.text();
  let got = -1;
  try {
    got = count(JSON.parse(text));
  } catch {
    /* reported below */
  }
  return response.status !== 200 || got !== records ? `${target.name} with ${records} records answered ${response.status}: ${text.slice(0, 300)}` : null;
}

type GatewayInfo = { url: string; path: string; headers: Record<string, string>; connectionId: string };

/** The processes one part measures: an upstream (answering after `delayMs`), the bare proxy, and a gateway per log level (and the baseline's, with --baseline). */
interface Targets {
  children: Child<any>[];
  proxy: Child<{ url: string }>;
  gateways: Map<Side, Child<GatewayInfo>>;
  upstream: Child<{ url: string; sizes: Record<string, number> }>;
  /** /dev/null, where gateways that log write their lines (as to a pipe nobody is slow to read). */
  nullFd: number;
}

async function startTargets(delayMs: number): Promise<Targets> {
  const children: Child<any>[] = [];
  const nullFd = openSync('/dev/null', 'w');
  try {
    const upstream = await startChild<{ url: string; sizes: Record<string, number> }>('upstream.ts', { env: { BENCH_UPSTREAM_DELAY_MS: String(delayMs) }, compiled: true });
    children.push(upstream);
    const env = { BENCH_UPSTREAM_URL: upstream.info.url };
    const proxy = await startChild<{ url: string }>('proxy.ts', { env, execArgv: profiled('proxy'), compiled: true });
    children.push(proxy);
    pinTarget(proxy);
    const gateways = new Map<Side, Child<GatewayInfo>>();
    for (const level of logLevels) {
      const options = { env: { ...env, BENCH_LOG_LEVEL: level }, ...(level === 'silent' ? {} : { stdout: nullFd }) };
      const gateway = await startChild<GatewayInfo>('gateway.ts', { ...options, execArgv: [...gatewayNodeFlags, ...(level === logLevels[0] ? profiled('gateway') : [])], compiled: true });
      children.push(gateway);
      pinTarget(gateway);
      gateways.set(`gateway@${level}`, gateway);
      // --baseline: the same bench gateway from another checkout (its own engine), measured in the same rounds.
      if (baselineDir) {
        const baseline = await startChild<GatewayInfo>(baselineGatewayFile(baselineDir), { ...options, execArgv: baselineNodeFlags });
        children.push(baseline);
        pinTarget(baseline);
        gateways.set(`baseline@${level}`, baseline);
      }
    }
    return { children, proxy, gateways, upstream, nullFd };
  } catch (error) {
    for (const child of children.reverse()) await child.stop();
    closeSync(nullFd);
    throw error;
  }
}

/**
 * --pin: every thread of a measured target (its main thread, V8's GC helpers, the store's worker) on the
 * last CPU; this process (the load generator) and the upstream, started before the pin of this process
 * was inherited, on the first.
 */
function pinTarget(child: Child<unknown>): void {
  if (pinTo !== undefined) pinProcess(child.process.pid!, pinTo);
}

/** Every thread of process `pid`, and those it starts later, on CPU `cpu` (taskset). */
function pinProcess(pid: number, cpu: number): void {
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)], { stdio: 'ignore' });
}

async function stopTargets(targets: Targets): Promise<void> {
  for (const child of targets.children.reverse()) await child.stop();
  closeSync(targets.nullFd);
}

function targetOf(targets: Targets, side: Side, records: number): LoadTarget {
  if (side === PROXY) return { name: PROXY, url: `${targets.proxy.info.url}/records?limit=${records}&view=full`, method: 'GET' };
  const g = targets.gateways.get(side)!;
  return { name: side, url: `${g.info.url}${g.info.path}`, method: 'POST', headers: g.info.headers, body: JSON.stringify({ connectionId: g.info.connectionId, arguments: { limit: records } }) };
}

function pidOf(targets: Targets, side: Side): number {
  return (side === PROXY ? targets.proxy : targets.gateways.get(side)!).process.pid!;
}

/** Asks every target once for each size before any load; says which cannot answer. */
async function checkTargets(targets: Targets, sides: Side[], records: readonly number[]): Promise<void> {
  for (const n of records) {
    for (const side of sides) {
      const problem = await check(targetOf(targets, side, n), n, side === PROXY ? (b) => b.data.records.length : (b) => (b.success === true ? b.data.length : -1));
      if (problem) log(`  check: ${problem}`);
    }
  }
}

/** One measured pass of one side: its figures, CPU per answered request, RSS after it, and /health at one connection meanwhile when asked. */
async function pass(targets: Targets, side: Side, target: LoadTarget, load: { connections: number; durationSeconds: number; withHealth: boolean }): Promise<LoadMeasure> {
  await warmUp({ ...target }, load.connections);
  const pid = pidOf(targets, side);
  const before = cpuMicros(pid);
  const health =
    load.withHealth && side !== PROXY
      ? measure({ name: `${side} /health`, url: `${targets.gateways.get(side)!.info.url}/health`, method: 'GET' }, { connections: 1, warmupSeconds: 0, durationSeconds: load.durationSeconds })
      : undefined;
  const figures = await measure(target, { connections: load.connections, warmupSeconds: 0, durationSeconds: load.durationSeconds });
  const measured: LoadMeasure = { figures, cpuUsPerRequest: round((cpuMicros(pid) - before) / Math.max(1, figures.requests), 0), rssMb: rssMb(pid) };
  if (health) measured.health = await health;
  await settle(pid);
  return measured;
}

/**
 * Waits until a target has finished what the pass left it (runs still in
 * flight when the load stopped: 10 runs of 10,000 records take seconds of
 * CPU on a busy machine), at most 30 s: so that work is not counted in the
 * next pass, this side's or another's.
 */
async function settle(pid: number): Promise<void> {
  const until = Date.now() + 30_000;
  let before = cpuMicros(pid);
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuMicros(pid);
    // Under 10% of one CPU over 200 ms: idle (timers, the log's periodic flush).
    if (!(now - before > 20_000)) return;
    before = now;
  }
}

/**
 * The bare proxy and the gateway (at each log level; and the baseline's)
 * side by side (load-rounds.ts): `rounds` rounds, each measuring every side
 * at every size at the load's connections (req/s, CPU per answered request,
 * RSS, failures; at 10,000 records /health meanwhile) and, up to 100
 * records, at one connection (p50, p99), the order rotating round to round.
 */
async function loadBenchmark(): Promise<LoadResult> {
  const loadAverageAtStart = os.loadavg().map((l) => round(l, 2));
  const targets = await startTargets(0);
  try {
    log(`upstream ${targets.upstream.info.url} (bodies: ${Object.entries(targets.upstream.info.sizes).map(([n, b]) => `${n} records ${b} B`).join(', ')}), proxy ${targets.proxy.info.url}, ${[...targets.gateways].map(([side, g]) => `${side} ${g.info.url}`).join(', ')}${baselineDir ? ` (baseline: ${baselineDir})` : ''}`);
    const sides: Side[] = [PROXY, ...targets.gateways.keys()];
    await checkTargets(targets, sides, recordCounts);
    await warmUpAtStart(targets, sides, Math.min(...recordCounts), settings.connections);
    const rounds: Round[] = [];
    for (let index = 1; index <= Math.max(1, settings.rounds); index++) {
      const order = orderIn(index, sides);
      const r: Round = { index, order, loaded: {}, oneConnection: {} };
      for (const records of recordCounts) {
        r.loaded[records] = {};
        for (const side of order) {
          // A run of 10,000 records takes a second or more when 10 go at once: three times as long a pass, so that enough of them end in it.
          const durationSeconds = records >= 10_000 ? settings.durationSeconds * 3 : settings.durationSeconds;
          const measured = await pass(targets, side, targetOf(targets, side, records), { connections: settings.connections, durationSeconds, withHealth: records === 10_000 });
          r.loaded[records]![side] = measured;
          const failure = failureOf(measured.figures);
          log(
            `  round ${index}  ${String(records).padStart(5)} records  ${side.padEnd(15)}  ${String(measured.figures.requestsPerSecond).padStart(6)} req/s  ${String(measured.cpuUsPerRequest).padStart(6)} CPU µs/req  p50 ${measured.figures.p50Ms} ms  RSS ${measured.rssMb} MB${measured.health ? `  /health p99 ${measured.health.p99Ms} ms` : ''}${failure ? `  FAILED: ${failure}` : ''}`,
          );
        }
      }
      for (const records of recordCounts.filter((n) => n <= 100)) {
        r.oneConnection[records] = {};
        for (const side of order) {
          const figures = await measure(targetOf(targets, side, records), { connections: 1, warmupSeconds: Math.min(1, settings.warmupSeconds), durationSeconds: settings.latencyDurationSeconds });
          r.oneConnection[records]![side] = figures;
          const failure = failureOf(figures);
          log(`  round ${index}  ${String(records).padStart(5)} records  ${side.padEnd(15)}  1 connection: p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms${failure ? `  FAILED: ${failure}` : ''}`);
        }
      }
      rounds.push(r);
    }
    return { ...summarise(rounds, recordCounts), connections: settings.connections, loadAverage: { start: loadAverageAtStart, end: os.loadavg().map((l) => round(l, 2)) }, measured: rounds };
  } finally {
    await stopTargets(targets);
  }
}

/**
 * A slow provider: the same sides against an upstream that answers after
 * 100 ms, at 10 records, at each of --slow-connections client connections
 * (req/s, p50, p99, failures, CPU per request), the order rotating round to
 * round. A cap on the sockets (or calls) to one origin shows as req/s stuck
 * at cap / 0.1 s whatever the connections.
 */
async function slowBenchmark(): Promise<LoadResult> {
  const loadAverageAtStart = os.loadavg().map((l) => round(l, 2));
  const targets = await startTargets(100);
  try {
    log(`upstream ${targets.upstream.info.url} answering after 100 ms, proxy ${targets.proxy.info.url}, ${[...targets.gateways].map(([side, g]) => `${side} ${g.info.url}`).join(', ')}`);
    const sides: Side[] = [PROXY, ...targets.gateways.keys()];
    await checkTargets(targets, sides, [10]);
    // At the most connections: with a 100 ms upstream, fewer answer too few requests to warm anything.
    await warmUpAtStart(targets, sides, 10, Math.max(...slowConnections));
    const rounds: Round[] = [];
    for (let index = 1; index <= Math.max(1, settings.rounds); index++) {
      const order = orderIn(index, sides);
      const r: Round = { index, order, loaded: {}, oneConnection: {} };
      for (const connections of slowConnections) {
        r.loaded[connections] = {};
        for (const side of order) {
          const measured = await pass(targets, side, targetOf(targets, side, 10), { connections, durationSeconds: settings.durationSeconds, withHealth: false });
          r.loaded[connections]![side] = measured;
          const failure = failureOf(measured.figures);
          log(`  round ${index}  ${String(connections).padStart(5)} connections  ${side.padEnd(15)}  ${String(measured.figures.requestsPerSecond).padStart(6)} req/s  p50 ${measured.figures.p50Ms} ms  p99 ${measured.figures.p99Ms} ms  ${measured.cpuUsPerRequest} CPU µs/req${failure ? `  FAILED: ${failure}` : ''}`);
        }
      }
      rounds.push(r);
    }
    return { ...summarise(rounds, slowConnections), connections: 0, loadAverage: { start: loadAverageAtStart, end: os.loadavg().map((l) => round(l, 2)) }, measured: rounds };
  } finally {
    await stopTargets(targets);
  }
}

/** The sides of a part summary as table rows: one per size and side, with the figures against the proxy. */
function sideRows(summary: RoundsSummary, sizeName: string): string {
  const rows: (string | number)[][] = [];
  for (const size of summary.sizes) {
    for (const [side, s] of Object.entries(size.sides)) {
      const shown = (v: number | undefined, suffix = '') => (v === undefined || Number.isNaN(v) ? '-' : `${v}${suffix}`);
      rows.push([
        `${size.size} ${side}`,
        shown(s.requestsPerSecond),
        s.requestsShare === undefined ? '' : `${round(s.requestsShare * 100, 1)}%`,
        shown(s.cpuUsPerRequest),
        s.cpuRatio === undefined ? '' : `${s.cpuRatio}x`,
        shown(s.p50Ms),
        shown(s.p99Ms),
        shown(s.oneConnectionP50Ms),
        shown(s.rssMb),
        shown(s.healthP99Ms),
        `${s.validRounds.length}/${summary.rounds}`,
        s.failures.length ? `${s.failedRequests} (${s.failures[0]})` : '0',
      ]);
    }
  }
  return table([`${sizeName} side`, 'req/s', 'of proxy', 'CPU µs/req', 'of proxy', 'p50 ms', 'p99 ms', 'p50 1 conn', 'RSS MB', '/health p99', 'valid', 'failed requests'], rows);
}

/**
 * What the 70% target allows: the bare proxy at 10 records with a fixed
 * amount of CPU work added to each request (a busy loop), against itself
 * with none. On a machine where the load generator, the upstream and the
 * target share the CPUs, a slower target also pays more per request for the
 * same socket work (its peers sleep, and each write wakes one), so req/s
 * falls faster than the work alone would make it.
 */
async function budgetBenchmark(): Promise<{ burnUs: number; requestsPerSecond: number; cpuUsPerRequest: number; share: number }[]> {
  const upstream = await startChild<{ url: string }>('upstream.ts', { compiled: true });
  try {
    const rows: { burnUs: number; requestsPerSecond: number; cpuUsPerRequest: number; share: number }[] = [];
    for (const burnUs of BURNS_US) {
      const proxy = await startChild<{ url: string }>('proxy.ts', { env: { BENCH_UPSTREAM_URL: upstream.info.url, BENCH_PROXY_BURN_US: String(burnUs) }, compiled: true });
      try {
        const target: LoadTarget = { name: `proxy+${burnUs}µs`, url: `${proxy.info.url}/records?limit=10&view=full`, method: 'GET' };
        const problem = await check(target, 10, (b) => b.data.records.length);
        if (problem) throw new Error(problem);
        await warmUp(target);
        const before = cpuMicros(proxy.process.pid!);
        const figures = await measure(target, { ...settings, warmupSeconds: 0 });
        const cpuUsPerRequest = round((cpuMicros(proxy.process.pid!) - before) / Math.max(1, figures.requests), 0);
        const share = rows.length ? round(figures.requestsPerSecond / rows[0]!.requestsPerSecond, 3) : 1;
        rows.push({ burnUs, requestsPerSecond: figures.requestsPerSecond, cpuUsPerRequest, share });
        log(`  proxy + ${String(burnUs).padStart(3)} µs of work per request  ${String(figures.requestsPerSecond).padStart(6)} req/s  ${round(share * 100, 1)}% of the bare proxy`);
      } finally {
        await proxy.stop();
      }
    }
    return rows;
  } finally {
    await upstream.stop();
  }
}

/** How many of a pass's warm-ups each freshly started target gets before round 1 (warmUpAtStart). */
const START_WARMUPS = 3;

/**
 * Every side loaded once before the rounds, its figures dropped, START_WARMUPS times as long as a pass's
 * warm-up: a target's first seconds after its start cost it up to three times the CPU a request of its later
 * rounds (round 1 read 758 µs a request at 10 records against 271 and 352 in rounds 2 and 3, 30 November),
 * and with three rounds that one pass moved the median. Each side is then let settle, as after a pass.
 */
async function warmUpAtStart(targets: Targets, sides: Side[], records: number, connections: number): Promise<void> {
  if (settings.warmupSeconds <= 0) return;
  for (const side of sides) {
    await warmUp(targetOf(targets, side, records), connections, settings.warmupSeconds * START_WARMUPS);
    await settle(pidOf(targets, side));
  }
  log(`  every side warmed up once after its start: ${settings.warmupSeconds * START_WARMUPS} s at ${records} records, ${connections} connection${connections === 1 ? '' : 's'} (not measured)`);
}

/** The warm-up run alone, its figures dropped: so the CPU read around the measured run is that run's only. */
async function warmUp(target: LoadTarget, connections = settings.connections, seconds = settings.warmupSeconds): Promise<void> {
  if (seconds > 0) await measure(target, { connections, durationSeconds: seconds, warmupSeconds: 0 });
}

/** Resident memory of a process, in MB (Linux /proc; NaN where there is none). */
function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
    return round(Number(line!.split(/\s+/)[1]) / 1024, 0);
  } catch {
    return Number.NaN;
  }
}

/** User + system CPU a process has used, in µs (Linux /proc; NaN where there is none). */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Cold loads in processes of their own, alternating, `rounds` of each: with the definitions cache off, restarting from it warm, and a first start (the cache empty, written after the load). */
export interface ColdStarts {
  rounds: number;
  off: ColdResult[];
  warm: ColdResult[];
  first: ColdResult[];
  loadAverage: number[];
}

/** The scale table's rows of the cold loads in processes of their own: medians, and every run. */
function coldRows(colds: ColdStarts): [string, string][] {
  const rows: [string, string][] = [];
  for (const [kind, name] of [['off', 'cold, cache off'], ['warm', 'cold, restart (cache warm)'], ['first', 'cold, first start (cache empty)']] as const) {
    const runs = colds[kind];
    if (!runs.length) continue;
    const all = (pick: (c: ColdResult) => number) => `${median(runs.map(pick))} (${runs.map(pick).join(', ')})`;
    rows.push([`${name}: total ms, median (runs)`, all((c) => c.totalMs)]);
    rows.push([`${name}: CPU ms, median (runs)`, all((c) => c.cpuMs)]);
    rows.push([`${name}: RSS after load / peak, MB, median`, `${median(runs.map((c) => c.rssAfterLoadMb))} / ${median(runs.map((c) => c.peakRssAfterLoadMb))}`]);
    rows.push([`${name}: files parsed / from the cache`, `${runs[0]!.analysed} / ${runs[0]!.cached}`]);
    if (kind === 'first') {
      rows.push([`${name}: writing the cache after the load, ms, median (runs)`, all((c) => c.write?.writeMs ?? Number.NaN)]);
      rows.push([`${name}: peak RSS with the writes, MB, median (runs)`, all((c) => c.write?.peakRssAfterWriteMb ?? Number.NaN)]);
    }
  }
  rows.push(['load average at the start / end of the scale part (1, 5, 15 min)', `${colds.loadAverage.slice(0, 3).join(' ')} / ${colds.loadAverage.slice(3).join(' ')}`]);
  return rows;
}

async function scaleBenchmark(): Promise<ScaleResult & { generateMs: number; colds: ColdStarts }> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-scale-'));
  const dir = path.join(tmp, 'definitions');
  const cacheDir = path.join(tmp, 'cache');
  try {
    const started = performance.now();
    const files = await generateTree(dir, settings.apps, settings.actions);
    const generateMs = round(performance.now() - started, 0);
    log(`generated ${settings.apps} apps x ${settings.actions} actions (${files} files) in ${generateMs} ms`);
    const loadAverage = os.loadavg().map((l) => round(l, 2));
    // The first start: the cache empty (the child writes it after its load), then the reloads.
    const result = await runChild<ScaleResult>('scale.ts', {
      env: {
        BENCH_SCALE_DIR: dir,
        BENCH_SCALE_APPS: String(settings.apps),
        BENCH_RELOADS: String(settings.reloads),
        BENCH_SCALE_CACHE_DIR: cacheDir,
        ...(settings.debounceMs ? { BENCH_DEBOUNCE_MS: settings.debounceMs } : {}),
      },
      execArgv: profiled('scale'),
      timeoutMs: 600_000,
    });
    const colds: ColdStarts = { rounds: settings.scaleRounds, off: [], warm: [], first: [], loadAverage };
    const named = { off: 'cache off', warm: 'restart, cache warm', first: 'first start, cache empty' };
    for (let i = 0; i < settings.scaleRounds; i++) {
      const kinds = i % 2 === 0 ? (['off', 'warm', 'first'] as const) : (['first', 'warm', 'off'] as const);
      for (const kind of kinds) {
        // A first start writes into a cache folder of its own, empty; the restarts read the one the first child wrote.
        const firstDir = path.join(tmp, `cache-first-${i}`);
        const cold = await runChild<ColdResult>('scale.ts', {
          env: { BENCH_SCALE_DIR: dir, BENCH_SCALE_MODE: 'cold', ...(kind === 'warm' ? { BENCH_SCALE_CACHE_DIR: cacheDir } : kind === 'first' ? { BENCH_SCALE_CACHE_DIR: firstDir } : {}) },
          timeoutMs: 600_000,
        });
        if (kind === 'first') await fs.rm(firstDir, { recursive: true, force: true });
        const writing = cold.write ? `; writing the cache after it ${cold.write.writeMs} ms, peak RSS then ${cold.write.peakRssAfterWriteMb} MB` : '';
        log(`  cold load, ${named[kind]}: ${cold.totalMs} ms (CPU ${cold.cpuMs} ms), peak RSS ${cold.peakRssAfterLoadMb} MB, ${cold.cached} files from the cache${writing}`);
        colds[kind].push(cold);
      }
    }
    colds.loadAverage.push(...os.loadavg().map((l) => round(l, 2)));
    return { ...result, generateMs, colds };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** The embedded store at scale: files written by one child, opened, queried, written and compacted by another (its RSS the store's alone). */
async function storeBenchmark(): Promise<StoreResult & { seedMs: number }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-store-'));
  try {
    const env = { BENCH_STORE_DIR: dir, BENCH_STORE_RECORDS: String(settings.storeRecords) };
    const seed = await runChild<{ seedMs: number }>('store-seed.ts', { env, timeoutMs: 1_800_000 });
    log(`wrote ${settings.storeRecords} end users, connections (each renewed once) and installations in ${seed.seedMs} ms`);
    const result = await runChild<StoreResult>('store.ts', { env, execArgv: ['--expose-gc'], timeoutMs: 3_600_000 });
    return { ...result, seedMs: seed.seedMs };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    nproc: CPUS,
    cpu: cpus[0]?.model ?? 'unknown',
    memoryGb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    // Other work on the machine skews every figure: the 1-minute load average when the run started and ended.
    loadAverage: os.loadavg().map((l) => round(l, 2)),
  };
}

const status = (ok: boolean) => (ok ? 'met' : 'MISSED');

async function main(): Promise<void> {
  const results: Record<string, unknown> = { machine: machine(), settings, ...(gatewayNodeFlags.length ? { gatewayNodeFlags } : {}), ...(baselineDir && baselineNodeFlags !== gatewayNodeFlags ? { baselineNodeFlags } : {}), ...(pinTo === undefined ? {} : { pinnedTargetsToCpu: pinTo }) };
  log(`bench: ${JSON.stringify(results.machine)}`);
  log(`settings: ${JSON.stringify(settings)}\n`);
  if (gatewayNodeFlags.length) log(`the gateways run with node ${gatewayNodeFlags.join(' ')}\n`);
  if (baselineDir && baselineNodeFlags !== gatewayNodeFlags) log(`the baseline's gateways run with node ${baselineNodeFlags.join(' ') || '(no flags)'}\n`);
  if (pinTo !== undefined) {
    // Before any child starts: the upstream inherits the first CPU; each target is moved to the last as it starts (pinTarget).
    pinProcess(process.pid, 0);
    log(`pinned: the load generator and the upstream on CPU 0, each measured target (all its threads) on CPU ${pinTo}\n`);
  }

  const failures: string[] = [];
  /** A part that fails is reported and the others still run; the run then exits 1. */
  const part = async (name: string, run: () => Promise<void>) => {
    if (!only.has(name)) return;
    try {
      await run();
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
      log(`${name} FAILED: ${(error as Error).stack ?? String(error)}\n`);
    }
  };

  let load: LoadResult | undefined;
  await part('load', async () => {
    log(`== load: the bare proxy and the gateway (LOG_LEVEL ${logLevels.join(', ')}${baselineDir ? '; and the baseline' : ''}) side by side, ${settings.rounds} rounds rotating, medians (autocannon, ${settings.connections} connections; each target in its own process)`);
    load = await loadBenchmark();
    results.load = load;
    log('');
    log(`load average (1, 5, 15 min) at the start ${load.loadAverage.start.join(' ')}, at the end ${load.loadAverage.end.join(' ')} (${onCpus})\n`);
    log(sideRows(load, 'records'));
    log(`(medians of the valid rounds of each side, at ${settings.connections} connections; "of proxy": medians of each round's own ratio; latencies in ms; /health p99 at one connection while the 10,000-record load ran)\n`);
  });

  let slow: LoadResult | undefined;
  await part('slow', async () => {
    log(`== slow: a 100 ms upstream, 10 records, at ${slowConnections.join(', ')} client connections; ${settings.rounds} rounds rotating, medians`);
    slow = await slowBenchmark();
    results.slow = slow;
    log('');
    log(`load average (1, 5, 15 min) at the start ${slow.loadAverage.start.join(' ')}, at the end ${slow.loadAverage.end.join(' ')} (${onCpus})\n`);
    log(sideRows(slow, 'connections'));
    log('(medians of the valid rounds of each side; "of proxy": medians of each round\'s own ratio; latencies in ms)\n');
  });

  await part('budget', async () => {
    log('== budget: the bare proxy with work added to each request (10 records)');
    const budget = await budgetBenchmark();
    results.budget = budget;
    log('');
    log(table(['work added per request', 'req/s', 'CPU µs per request', 'share of the bare proxy'], budget.map((b) => [`${b.burnUs} µs`, b.requestsPerSecond, b.cpuUsPerRequest, `${round(b.share * 100, 1)}%`])));
    log('(the 70% target allows the gateway about as much work per request as the row that keeps 70%)\n');
  });

  let mapping: MappingCost[] | undefined;
  await part('mapping', async () => {
    log('== mapping cost (evaluateGuarded on synthetic provider bodies)');
    mapping = await runChild<MappingCost[]>('mapping-cost.ts', { env: { BENCH_MAPPING_MS: String(settings.mappingMs) }, timeoutMs: 600_000 });
    results.mapping = mapping;
    const at = (m: MappingCost, n: number) => m.sizes.find((s) => s.records === n)!;
    log(
      table(
        ['action', 'µs @1', 'µs @10', 'µs @100', 'µs/rec @10', 'µs/rec @100', 'µs/rec @1000', 'marginal µs/rec'],
        mapping.map((m) => [m.action, at(m, 1).usPerCall, at(m, 10).usPerCall, at(m, 100).usPerCall, at(m, 10).usPerRecord, at(m, 100).usPerRecord, at(m, 1000).usPerRecord, m.marginalUsPerRecord]),
      ),
    );
    log('');
  });

  let scale: (ScaleResult & { generateMs: number; colds: ColdStarts }) | undefined;
  await part('scale', async () => {
    log('== definition scale');
    scale = await scaleBenchmark();
    results.scale = scale;
    log(
      table(
        ['figure', 'value'],
        [
          ['apps x actions (files)', `${scale.apps} x ${settings.actions} = ${scale.actions} actions (${scale.files} files)`],
          ['cold, first start (definitions cache empty): read files', `${scale.cold.readMs} ms`],
          ['cold, first start: validate + compile + check + build', `${scale.cold.validateCompileBuildMs} ms`],
          ['cold, first start: total (CPU)', `${scale.cold.totalMs} ms (${scale.cold.cpuMs} ms)`],
          ['cold, first start: writing the cache, after the load', `${scale.cacheWrite.writeMs} ms, ${scale.cacheWrite.cacheMb} MB on disk (peak RSS then ${scale.cacheWrite.peakRssAfterWriteMb} MB)`],
          ['RSS before / after load', `${scale.memory.rssBeforeMb} / ${scale.memory.rssAfterLoadMb} MB`],
          ['peak RSS (load / whole child)', `${scale.memory.peakRssAfterLoadMb} / ${scale.memory.peakRssMb} MB`],
          ...coldRows(scale.colds),
          ['reload, nothing changed (cache warm)', `${scale.reload.unchangedMs} ms`],
          ['reload after a one-file change, registry.reload() direct, changed path given (incremental)', `${scale.reload.directOneFileMs} ms`],
          ['the same without the path (full: every file read)', `${scale.reload.directFullOneFileMs} ms`],
          ['watcher ready', `${scale.reload.watcherReadyMs} ms`],
          ['one-file change to new snapshot serving (watcher)', `${scale.reload.watchedTotalMs} ms`],
          [`  detection + debounce (${scale.reload.debounceMs} ms)`, `${scale.reload.watchedDetectAndDebounceMs} ms`],
          ['  rebuild', `${scale.reload.watchedRebuildMs} ms`],
          ['  watched reloads that read every file', `${scale.reload.watchedFull} of ${scale.reload.watched.length}`],
        ],
      ),
    );
    log('');
  });

  await part('start', async () => {
    log(`== start: npm start (compiled, plain node) against npm run dev (tsx) and compiled without source maps${baselineDir ? `, and the baseline's npm start (${baselineDir})` : ''}, each a first start on an empty DATA_DIR then a restart on it, ${settings.rounds} rounds rotating, ${settings.connections} connections, 10 records`);
    // dist/ as npm start has it: its prestart, the incremental build.
    const built = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'scripts/build-if-needed.mjs')], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error('building dist/ failed');
    const upstream = await startChild<{ url: string }>('upstream.ts');
    try {
      // The baseline checkout's dist/, built there (its prestart is not run: that would build with this checkout's TypeScript).
      if (baselineDir) baselineGatewayFile(baselineDir);
      const start = await startBenchmark(upstream.info.url, settings.rounds, settings, log, baselineDir);
      results.start = start;
      log('');
      log(
        table(
          ['variant', 'command', 'first start to /health p50', 'all first starts (ms)', 'peak RSS to /health', 'RSS at /health', 'restart p50', 'restart peak RSS', 'CPU µs/request p50', 'req/s p50', 'helper processes'],
          start.summary.map((s) => [
            s.variant,
            s.command,
            `${s.startMsMedian} ms`,
            s.startMsAll.join(' '),
            `${s.peakRssMbAtHealthMedian} MB`,
            `${s.rssMbAtHealthMedian} MB`,
            `${s.restartMsMedian} ms`,
            `${s.restartPeakRssMbAtHealthMedian} MB`,
            s.cpuUsPerRequestMedian,
            s.requestsPerSecondMedian,
            s.helperProcesses.join(', ') || 'none',
          ]),
        ),
      );
      log('');
    } finally {
      await upstream.stop();
    }
  });

  await part('store', async () => {
    log('== embedded store (NeDB) at scale');
    const store = await storeBenchmark();
    results.store = store;
    log(
      table(
        ['file', 'lines before open', 'MB before', 'lines after open', 'MB after'],
        store.filesBefore.map((f, i) => [f.collection, f.lines, f.mb, store.filesAfterOpen[i]!.lines, store.filesAfterOpen[i]!.mb]),
      ),
    );
    log('');
    log(
      table(
        ['figure', 'value'],
        [
          ['records (end users / connections / installations)', `${store.records.endUsers} / ${store.records.connections} / ${store.records.installations}`],
          ['open (load + indexes + compaction on start)', `${store.openMs} ms (CPU ${store.openCpuMs} ms)`],
          ['open again after a clean stop (files compacted)', `${store.reopenMs} ms (CPU ${store.reopenCpuMs} ms)`],
          ['RSS before / after open (after GC)', `${store.memory.rssBeforeMb} / ${store.memory.rssAfterOpenMb} MB`],
          ['heap used after open (after GC)', `${store.memory.heapUsedAfterOpenMb} MB`],
          ['peak RSS', `${store.memory.peakRssMb} MB`],
          ['load average at start / end (1, 5, 15 min)', `${store.loadAverage.start.join(' ')} / ${store.loadAverage.end.join(' ')}`],
        ],
      ),
    );
    log('');
    log(table(['operation', 'samples', 'p50 ms', 'p99 ms'], [...store.reads, ...store.writes].map((l) => [l.name, l.samples, l.p50Ms, l.p99Ms])));
    log('');
    log(
      table(
        ['compaction', 'records', 'duration ms', 'CPU ms', 'longest event-loop stall ms', 'monitorEventLoopDelay max ms'],
        store.compactions.map((c) => [c.collection, c.records, c.durationMs, c.cpuMs, c.longestStallMs, c.maxDelayMs]),
      ),
    );
    log('');
  });

  const targets: { target: string; goal: string; result: string; status: string }[] = [];
  const loadAverageOf = (part: LoadResult) => `load ${part.loadAverage.start[0]}-${part.loadAverage.end[0]}`;
  const add = (part: LoadResult | undefined, list: (p: LoadResult) => Target[]) => {
    if (part) for (const t of list(part)) targets.push({ target: t.target, goal: t.goal, result: `${t.measured} (${loadAverageOf(part)})`, status: status(t.met) });
  };
  add(load, costTargets);
  add(slow, slowTargets);
  if (scale) {
    const full = scale.actions >= 30_000;
    const note = full ? '' : ` (only ${scale.actions} actions)`;
    if (scale.colds.first.length) {
      // The first starts in processes of their own (the main child's one load comes right after the tree was written); the peak counts the cache's writes.
      const firstMs = median(scale.colds.first.map((c) => c.totalMs));
      const firstPeak = median(scale.colds.first.map((c) => Math.max(c.peakRssAfterLoadMb, c.write?.peakRssAfterWriteMb ?? 0)));
      targets.push({ target: `${scale.actions} actions loaded cold, first start (cache empty), median of ${scale.colds.first.length}`, goal: '<= 5 s', result: `${round(firstMs / 1000, 2)} s${note}`, status: status(firstMs <= 5000) });
      targets.push({ target: 'peak RSS loading them and writing the cache, first start', goal: '<= 300 MB', result: `${firstPeak} MB${note}`, status: status(firstPeak <= 300) });
    } else {
      targets.push({ target: `${scale.actions} actions loaded cold, first start (cache empty)`, goal: '<= 5 s', result: `${round(scale.cold.totalMs / 1000, 2)} s${note}`, status: status(scale.cold.totalMs <= 5000) });
      targets.push({ target: 'peak RSS loading them, first start', goal: '<= 300 MB', result: `${scale.memory.peakRssAfterLoadMb} MB${note}`, status: status(scale.memory.peakRssAfterLoadMb <= 300) });
    }
    if (scale.colds.warm.length) {
      const warmMs = median(scale.colds.warm.map((c) => c.totalMs));
      const warmPeak = median(scale.colds.warm.map((c) => c.peakRssAfterLoadMb));
      targets.push({ target: `${scale.actions} actions loaded cold, restart (cache warm), median of ${scale.colds.warm.length}`, goal: '<= 5 s', result: `${round(warmMs / 1000, 2)} s${note}`, status: status(warmMs <= 5000) });
      targets.push({ target: 'peak RSS loading them, restart', goal: '<= 300 MB', result: `${warmPeak} MB${note}`, status: status(warmPeak <= 300) });
    }
    targets.push({ target: 'one-file change to new snapshot (watcher)', goal: '<= 100 ms', result: `${scale.reload.watchedTotalMs} ms`, status: status(scale.reload.watchedTotalMs <= 100) });
  }
  results.targets = targets;
  if (targets.length) {
    log('== targets (figures, not a test: the run never fails on speed)');
    log(table(['target', 'goal', 'result', ''], targets.map((t) => [t.target, t.goal, t.result, t.status])));
  }
  (results.machine as { loadAverageAtEnd?: number[] }).loadAverageAtEnd = os.loadavg().map((l) => round(l, 2));
  log(`\nload average at start ${(results.machine as { loadAverage: number[] }).loadAverage.join(' ')}, at end ${os.loadavg().map((l) => round(l, 2)).join(' ')} (${onCpus})`);
  results.failures = failures;
  await fs.writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`\nwrote ${path.relative(process.cwd(), out) || out}`);
  if (failures.length) {
    log(`\n${failures.length} part(s) failed:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

if (run) await main();
