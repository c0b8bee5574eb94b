/**
 * `node --import tsx scripts/bench/outbound-cost.ts --old=<tree>`: what one
 * app call costs the gateway's process, from `http.send(...)` to the parsed
 * response, for this tree's HTTP client and for another tree's (main before
 * a change, say), in the same process and in alternating rounds, so a busy
 * machine skews both alike. Both compiled, as `npm start` runs them: this
 * tree's dist/ is brought up to date first (scripts/build-if-needed.mjs);
 * the other tree's dist/ is used as it is, never built. The upstream (10 records of JSON, as the load
 * bench's) runs in its own process: its CPU is not counted. Each round sends
 * `--calls` requests, 10 at a time, as a run does (a method, a URL, a
 * bearer header and a query parameter). CPU µs per call is this process's
 * user + system time over the calls; medians over the rounds.
 *
 * It reports figures and never fails on speed.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'node --import tsx scripts/bench/outbound-cost.ts',
  summary: "Measures one app call's CPU in the gateway's process (send() to the parsed response), this tree's HTTP client against another tree's, alternating rounds; CPU µs per call.",
  options: {
    old: { type: 'string' as const, value: '<dir>', description: 'the other tree (its engine/platform/outbound/client.ts); default /work/wt-base' },
    calls: { type: 'string' as const, value: '<n>', description: 'calls per round (default 20000)' },
    rounds: { type: 'string' as const, value: '<n>', description: 'rounds of each client, alternating (default 7)' },
  },
  examples: ['node --import tsx scripts/bench/outbound-cost.ts --old=/work/wt-base --rounds=7'],
};

interface Client {
  send(request: { method: string; url: string; headers?: Record<string, string>; query?: Record<string, string | number>; redirect?: unknown }): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** This tree's or another tree's client, with an egress policy admitting 127.0.0.1 (the upstream). */
async function clientOf(tree: string): Promise<Client> {
  const load = async <T>(file: string) => (await import(pathToFileURL(path.join(tree, 'dist', file)).href)) as T;
  const { createHttpClient } = await load<{ createHttpClient: (o: object) => Client }>('engine/platform/outbound/client.js');
  const { createEgressPolicy } = await load<{ createEgressPolicy: (a: unknown) => unknown }>('engine/platform/egress/policy.js');
  const { parseEgressAllow } = await load<{ parseEgressAllow: (t: string) => unknown }>('engine/platform/egress/allow-list.js');
  return createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32')) });
}

/** The load bench's upstream shape (10 records), in a child process. */
async function startUpstream(): Promise<{ url: string; stop: () => void }> {
  const code = `
    import http from 'node:http';
    import { listing } from ${JSON.stringify(pathToFileURL(path.resolve(import.meta.dirname, 'records.ts')).href)};
    const body = JSON.stringify(listing(10));
    const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body)); });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: String(line).trim(), stop: () => child.kill() };
}

async function round_(client: Client, url: string, calls: number): Promise<{ cpu: number; wall: number }> {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next++;
      const response = await client.send({ method: 'GET', url: `${url}/api/records`, headers: { accept: 'application/json', authorization: 'Bearer bench-token-123' }, query: { limit: 10 } });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
    }
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: 10 }, worker));
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { cpu: (cpu.user + cpu.system) / calls, wall: (wall * 1000) / calls };
}

async function main(old: string, calls: number, rounds: number): Promise<void> {
  const here = path.resolve(import.meta.dirname, '..', '..');
  const built = spawnSync(process.execPath, [path.join(here, 'scripts/build-if-needed.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build of this tree failed');
  const upstream = await startUpstream();
  const clients = { old: await clientOf(old), new: await clientOf(here) };
  try {
    // Warm-up: connections open, the code optimised, alternately as measured.
    for (let i = 0; i < 4; i++) for (const client of Object.values(clients)) await round_(client, upstream.url, Math.min(calls, 5000));
    const figures = { old: [] as { cpu: number; wall: number }[], new: [] as { cpu: number; wall: number }[] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const which of order) figures[which].push(await round_(clients[which], upstream.url, calls));
      process.stdout.write(`  round ${r + 1}: old ${round(figures.old.at(-1)!.cpu, 1)} CPU µs/call, new ${round(figures.new.at(-1)!.cpu, 1)}\n`);
    }
    const ratios = figures.new.map((f, i) => f.cpu / figures.old[i]!.cpu);
    process.stdout.write(
      `\n${table(
        ['client', 'CPU µs per call (median)', 'wall µs per call, 10 at a time (median)'],
        (['old', 'new'] as const).map((w) => [w === 'old' ? `old (${old})` : `new (${here})`, round(median(figures[w].map((f) => f.cpu)), 1), round(median(figures[w].map((f) => f.wall)), 1)]),
      )}\nnew/old CPU, median of the rounds' own ratios: ${round(median(ratios), 3)} (${rounds} rounds of ${calls} calls)\n`,
    );
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    upstream.stop();
  }
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) await main(path.resolve(args.values.old ?? '/work/wt-base'), Number(args.values.calls ?? 20_000), Number(args.values.rounds ?? 7));
