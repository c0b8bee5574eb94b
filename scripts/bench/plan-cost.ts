/**
 * `npm run bench:plan`: what the run plan (engine/core/plan/) costs and
 * saves, in one process. Reports figures; never fails on speed.
 *
 *   1. Making every action's plan of a generated tree (1,000 x 30 by
 *      default, --apps, --actions), as an eager build at load would: time
 *      and retained heap (a full GC before each reading).
 *   2. Building one outbound request, the reference interpretation
 *      (buildOutboundRequest) against the plan, alternating rounds, median:
 *      the benchmark's own action (bench/list-records, { limit: 10 }) and
 *      two bundled actions with more arguments.
 *   3. One whole run (runAction: build, auth, the call to an upstream in
 *      this process answering 10 records, the mapping, the envelope), the
 *      reference interpretation against the plan, alternating rounds of
 *      sequential runs, median CPU µs of this process per run (the upstream's
 *      share included, the same in both).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { buildOutboundRequest, type ArgumentDependencies, type HostValues } from '../../engine/core/arguments/index.ts';
import { DefinitionsLoader } from '../../engine/core/definitions/loader.ts';
import type { ActionEntry, AppVersion, DefinitionsSnapshot } from '../../engine/core/definitions/snapshot.ts';
import { evaluateGuarded } from '../../engine/core/mapping/index.ts';
import { fastPathOf } from '../../engine/core/mapping/fast/index.ts';
import { planOf } from '../../engine/core/plan/index.ts';
import { loadConfig } from '../../engine/config/config.ts';
import { startGateway } from '../../engine/gateway.ts';
import { newId } from '../../engine/platform/ids.ts';
import { createLogger } from '../../engine/platform/log/logger.ts';
import { runAction } from '../../engine/core/run/run-action.ts';
import { BENCH_ACTION, BENCH_APP, benchAppFiles, benchConnection, writeFiles } from './bench-app.ts';
import { listing } from './records.ts';
import { generateTree } from './scale-tree.ts';

export const cli = {
  command: 'npm run bench:plan --',
  summary:
    'Measures the run plan against the reference interpretation: one outbound request built, one whole run through runAction (CPU per run), and what making every plan of a generated tree at once costs (time, heap). Reports figures; never fails on speed.',
  options: {
    apps: { type: 'string' as const, value: '<n>', description: 'apps of the generated tree (default 1000)' },
    actions: { type: 'string' as const, value: '<n>', description: 'actions per app (default 30)' },
    rounds: { type: 'string' as const, value: '<n>', description: 'alternating rounds, reference then plan (default 7)' },
    builds: { type: 'string' as const, value: '<n>', description: 'builds a round; whole runs a round are a twentieth of it (default 20000)' },
  },
  examples: ['npm run bench:plan', 'npm run bench:plan -- --apps=100 --rounds=3 --builds=2000'],
};

const flags = { apps: '1000', actions: '30', rounds: '7', builds: '20000' };

// The heap figures need a full GC before each reading: exposed on first use, so the npm script needs no node flag,
// and importing this file (spec/platform/cli/docs-usage.spec.ts reads its `cli`) changes no flag of the importing process.
let gc: (() => void) | undefined;
const heapMb = () => {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function load(dir: string): Promise<DefinitionsSnapshot> {
  const result = await new DefinitionsLoader().loadDirectory(dir);
  if (!result.ok) throw new Error(`${dir} did not load: ${result.problems.length} problems`);
  return result.snapshot;
}

async function eagerCost(): Promise<void> {
  const apps = Number(flags.apps);
  const actions = Number(flags.actions);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-plan-'));
  try {
    await generateTree(dir, apps, actions);
    const snapshot = await load(dir);
    const pairs: [AppVersion, ActionEntry][] = [];
    for (const app of snapshot.apps.values()) for (const version of app.versions.values()) for (const action of version.actions.values()) pairs.push([version, action]);
    // Pass 1: the response mappings alone compiled (jsonata, then the fast path): what a plan's first use
    // pays for its mapping (a lazily compiled expression paid it on its first run before plans existed).
    const measure = (work: () => void) => {
      const heap = heapMb();
      const rss = process.memoryUsage().rss / 2 ** 20;
      const started = process.hrtime.bigint();
      work();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      return { ms, heap: heapMb() - heap, rss: process.memoryUsage().rss / 2 ** 20 - rss };
    };
    const mappings = measure(() => {
      for (const [, action] of pairs) if (action.response) fastPathOf(action.response.expression);
    });
    // Pass 2: the plans themselves (argument closures, split templates), the mappings already compiled.
    const plans = measure(() => {
      for (const [version, action] of pairs) planOf(version, action);
    });
    // Pass 3 finds every plan made: what a run pays to look its plan up.
    const again = process.hrtime.bigint();
    for (const [version, action] of pairs) planOf(version, action);
    const lookupNs = Number(process.hrtime.bigint() - again) / pairs.length;
    const row = (what: string, m: { ms: number; heap: number; rss: number }) => ({
      what,
      ms: Math.round(m.ms),
      'µs per action': Number(((m.ms * 1000) / pairs.length).toFixed(1)),
      'heap retained (MB)': Number(m.heap.toFixed(1)),
      'RSS grew (MB)': Number(m.rss.toFixed(1)),
    });
    console.log(`\nEvery plan of a ${apps} x ${actions} tree (${pairs.length} actions), made at once as an eager build would`);
    console.table([row('response mappings compiled (jsonata + fast path)', mappings), row('plans made (arguments, templates)', plans)]);
    console.log(`A made plan is found in ${Math.round(lookupNs)} ns.`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

interface Target {
  name: string;
  version: AppVersion;
  action: ActionEntry;
  host: HostValues;
  args: Record<string, unknown>;
}

async function buildCost(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-plan-app-'));
  try {
    await writeFiles(dir, benchAppFiles('http://127.0.0.1:4401'));
    const bench = (await load(dir)).appsBySlug.get('bench')!.versions.get(1)!;
    const bundled = await load(path.resolve('definitions'));
    const published = (slug: string) => {
      const app = bundled.appsBySlug.get(slug)!;
      return app.versions.get(app.published!)!;
    };
    const github = published('github');
    const hubspot = published('hubspot');
    const targets: Target[] = [
      { name: 'bench list-records { limit: 10 }', version: bench, action: bench.actions.get('list-records')!, host: { connection: { apiKey: 'k-1' } }, args: { limit: 10 } },
      {
        name: 'github list-issues (4 arguments, a list of labels)',
        version: github,
        action: github.actions.get('list-issues')!,
        host: { connection: { accessToken: 't-1' } },
        args: { owner: 'octo', repo: 'hello', state: 'open', labels: ['bug', 'ui'] },
      },
      {
        name: 'hubspot create-contact (an Object with 4 fields)',
        version: hubspot,
        action: hubspot.actions.get('create-contact')!,
        host: { connection: { accessToken: 't-1' } },
        args: { properties: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', countryCode: 'de' } },
      },
    ];
    const deps: ArgumentDependencies = { evaluateMapper: (expression, input) => evaluateGuarded(expression as never, input), lookupOptions: async () => [] };
    const builds = Number(flags.builds);
    const rows = [];
    for (const target of targets) {
      const { version, action, host, args } = target;
      const auth = version.api.auths[0];
      const reference = () => buildOutboundRequest({ action, api: version.api, auth, host, arguments: args }, deps);
      const plan = planOf(version, action);
      const planned = () => plan.build({ auth, host, arguments: args }, deps);
      // Both must build (a refused build measures the error path), and build the same.
      const [a, b] = [await reference(), await planned()];
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${target.name}: the plan and the reference build differently`);
      const time = async (build: () => Promise<unknown>) => {
        const started = process.hrtime.bigint();
        for (let i = 0; i < builds; i++) await build();
        return Number(process.hrtime.bigint() - started) / 1000 / builds;
      };
      await time(reference);
      await time(planned);
      const ref: number[] = [];
      const pl: number[] = [];
      for (let round = 0; round < Number(flags.rounds); round++) {
        ref.push(await time(reference));
        pl.push(await time(planned));
      }
      const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      rows.push({ action: target.name, 'reference µs': Number(median(ref).toFixed(2)), 'plan µs': Number(median(pl).toFixed(2)), ratio: Number((median(ref) / median(pl)).toFixed(1)) });
    }
    console.log(`\nOne outbound request built (median of ${flags.rounds} alternating rounds of ${builds}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    console.table(rows);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function runCost(): Promise<void> {
  const upstream = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  const body = Buffer.from(JSON.stringify(listing(10)));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-plan-run-'));
  const definitionsDir = path.join(root, 'definitions');
  await writeFiles(definitionsDir, benchAppFiles(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(root, 'data'), DEFINITIONS_DIR: definitionsDir, LOG_LEVEL: 'silent', EGRESS_ALLOW: '127.0.0.1/32' });
  const gateway = await startGateway(config, createLogger('silent'));
  try {
    const { services } = gateway;
    const version = services.definitions.current().appsBySlug.get(BENCH_APP)!.versions.get(1)!;
    const action = version.actions.get(BENCH_ACTION)!;
    const id = newId('con');
    const connection = benchConnection(services.keyring, version, id);
    const runs = Math.max(100, Math.round(Number(flags.builds) / 20));
    const burst = async (interpretation: 'plan' | 'reference') => {
      const cpu = process.cpuUsage();
      for (let i = 0; i < runs; i++) {
        const { envelope } = await runAction(services.run, { companyId: 'cmp_bench', version, action, connection, installation: null, endUser: null, arguments: { limit: 10 }, interpretation });
        if (!envelope.success || envelope.data.length !== 10) throw new Error(`the ${interpretation} run did not answer 10 rows`);
      }
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / runs;
    };
    await burst('reference');
    await burst('plan');
    const ref: number[] = [];
    const pl: number[] = [];
    for (let round = 0; round < Number(flags.rounds); round++) {
      ref.push(await burst('reference'));
      pl.push(await burst('plan'));
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    console.log(`\nOne whole run of bench/list-records at 10 records (median of ${flags.rounds} alternating rounds of ${runs} sequential runs; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    console.table([{ 'reference CPU µs/run': Math.round(median(ref)), 'plan CPU µs/run': Math.round(median(pl)), saved: Math.round(median(ref) - median(pl)) }]);
  } finally {
    await gateway.stop();
    upstream.close();
    await fs.rm(root, { recursive: true, force: true });
  }
}

if (isEntry(import.meta.url)) {
  const parsed = commandLine(cli);
  if (parsed) {
    const bad = Object.entries(parsed.values).find(([, value]) => typeof value === 'string' && !(Number.isInteger(Number(value)) && Number(value) >= 1));
    if (bad) {
      process.stderr.write(`--${bad[0]} must be a whole number of 1 or more (got "${bad[1]}")\n`);
      process.exitCode = 2;
    } else {
      Object.assign(flags, parsed.values);
      await buildCost();
      await runCost();
      await eagerCost();
    }
  }
}
