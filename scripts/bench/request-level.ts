/**
 * `node --import tsx scripts/bench/request-level.ts [--rounds=N]` (or its
 * compiled twin under dist/): what the request level costs, without an app
 * call. A plain node:http server and a one-middleware Koa app answer a small
 * JSON 404; the gateway answers a run of an action its app does not have
 * (404 ACTION_NOT_FOUND: every middleware, the body read, the route, the API
 * key, the run body's schema, app and version resolved) and a path no route
 * has (404 through the root router). CPU µs per answered request and req/s at
 * 10 connections, the targets in alternating order round to round, medians.
 */
import os from 'node:os';
import path from 'node:path';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { startChild, type Child } from './child.ts';
import { measure, type LoadTarget } from './load.ts';
import { cpuMicros } from './process-cpu.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'node --import tsx scripts/bench/request-level.ts',
  summary: 'Measures the request level alone (no app call): node:http, Koa, and the gateway answering an unknown action and an unknown path; CPU µs per request and req/s, medians of alternating rounds.',
  options: {
    rounds: { type: 'string' as const, value: '<n>', description: 'rounds (default 5)' },
    duration: { type: 'string' as const, value: '<s>', description: 'seconds per measured load (default 3)' },
    'cpu-prof': { type: 'boolean' as const, description: 'profile the gateway into .tmp/profiles' },
  },
  examples: ['node --import tsx scripts/bench/request-level.ts --rounds=5'],
};

async function main(rounds: number, durationSeconds: number, profile: boolean): Promise<void> {
  const loadAtStart = os.loadavg().map((l) => round(l, 2));
  const children: Child<any>[] = [];
  try {
    const node = await startChild<{ url: string }>('bare-server.ts', { env: { BENCH_BARE: 'node' } });
    children.push(node);
    const koa = await startChild<{ url: string }>('bare-server.ts', { env: { BENCH_BARE: 'koa' } });
    children.push(koa);
    // The gateway's connection is never called here: the upstream URL only has to be well-formed.
    const gateway = await startChild<{ url: string; path: string; headers: Record<string, string>; connectionId: string }>('gateway.ts', {
      env: { BENCH_UPSTREAM_URL: 'http://127.0.0.1:9' },
      execArgv: profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve('.tmp/profiles')}`] : [],
    });
    children.push(gateway);
    const body = JSON.stringify({ connectionId: gateway.info.connectionId, arguments: {} });
    const targets: { name: string; pid: number; target: LoadTarget; status: number }[] = [
      { name: 'node:http', pid: node.process.pid!, target: { name: 'node', url: `${node.info.url}/x`, method: 'POST', headers: { 'content-type': 'application/json' }, body }, status: 404 },
      { name: 'koa, one middleware', pid: koa.process.pid!, target: { name: 'koa', url: `${koa.info.url}/x`, method: 'POST', headers: { 'content-type': 'application/json' }, body }, status: 404 },
      {
        name: 'gateway: run of an unknown action',
        pid: gateway.process.pid!,
        target: { name: 'gateway-run', url: `${gateway.info.url}${gateway.info.path.replace(/actions\/[^/]+\/run$/, 'actions/none/run')}`, method: 'POST', headers: gateway.info.headers, body },
        status: 404,
      },
      { name: 'gateway: unknown path (root router)', pid: gateway.process.pid!, target: { name: 'gateway-404', url: `${gateway.info.url}/v2/nothing-here`, method: 'GET', headers: gateway.info.headers }, status: 404 },
    ];
    for (const t of targets) {
      const response = await fetch(t.target.url, { method: t.target.method, headers: t.target.headers ?? {}, ...(t.target.body ? { body: t.target.body } : {}) });
      const text = await response.text();
      if (response.status !== t.status) throw new Error(`${t.name} answered ${response.status}, not ${t.status}: ${text.slice(0, 200)}`);
    }
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let r = 1; r <= rounds; r++) {
      const order = r % 2 === 1 ? targets : [...targets].reverse();
      for (const t of order) {
        await measure(t.target, { connections: 10, warmupSeconds: 0, durationSeconds: 1 });
        const before = cpuMicros(t.pid);
        const figures = await measure(t.target, { connections: 10, warmupSeconds: 0, durationSeconds });
        // Every answer here is the expected 404: count them all (autocannon's non2xx), and refuse a round with errors or timeouts.
        const answered = figures.non2xx;
        if (figures.errors || figures.timeouts || answered === 0) throw new Error(`${t.name} in round ${r}: ${figures.errors} errors, ${figures.timeouts} timeouts, ${answered} answers`);
        cpu.get(t.name)!.push((cpuMicros(t.pid) - before) / answered);
        rps.get(t.name)!.push(answered / figures.durationSeconds);
        process.stdout.write(`  round ${r}  ${t.name.padEnd(36)} ${String(round(answered / figures.durationSeconds, 0)).padStart(6)} req/s  ${String(round(cpu.get(t.name)!.at(-1)!, 0)).padStart(5)} CPU µs/req\n`);
      }
    }
    const koaCpu = median(cpu.get('koa, one middleware')!);
    process.stdout.write(
      `\n${table(
        ['target', 'req/s', 'CPU µs/req', 'over Koa'],
        targets.map((t) => [t.name, round(median(rps.get(t.name)!), 0), round(median(cpu.get(t.name)!), 0), round(median(cpu.get(t.name)!) - koaCpu, 0)]),
      )}\n(medians of ${rounds} rounds, 10 connections; load average at start ${loadAtStart.join(' ')}, at end ${os
        .loadavg()
        .map((l) => round(l, 2))
        .join(' ')} on ${os.availableParallelism()} CPUs)\n`,
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) await main(Number(args.values.rounds ?? 5), Number(args.values.duration ?? 3), args.values['cpu-prof'] === true);
