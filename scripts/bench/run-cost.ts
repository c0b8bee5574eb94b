/**
 * `npm run bench:run`: the engine's own CPU per run, without the network.
 * A real gateway's services run bench/list-records (the load benchmark's
 * action) through runAction, its HTTP client answering a canned response of
 * N records at once (parsed as the client parses one), and the envelope is
 * written as the run endpoint writes it (envelopeBytes). The whole, then its
 * stages alone: the outbound request's build (the plan), the body's parse,
 * the response mapping, the envelope's rules and bytes. Median CPU µs per
 * call of alternating rounds, in this process, and the bytes each call
 * allocates on the heap (allocation.ts: what the young generation's GCs
 * work through); reports figures, never fails on speed or size. What the load benchmark's gateway spends beyond this is the
 * request level (Koa, body, API key, connection) and the call itself
 * (undici, sockets).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';
import { loadConfig } from '../../engine/config/config.ts';
import { startGateway } from '../../engine/gateway.ts';
import { createLogger } from '../../engine/platform/log/logger.ts';
import { evaluateGuarded } from '../../engine/core/mapping/index.ts';
import { parseBody } from '../../engine/platform/outbound/parse-body.ts';
import type { OutboundResponse } from '../../engine/platform/outbound/index.ts';
import { planOf } from '../../engine/core/plan/index.ts';
import { enforceEnvelope, type ActionMeta, type Proposal } from '../../engine/core/run/envelope.ts';
import { envelopeBytes } from '../../engine/core/run/envelope-json.ts';
import { responseFacts } from '../../engine/core/run/map-response.ts';
import { runAction } from '../../engine/core/run/run-action.ts';
import { BENCH_ACTION, BENCH_APP, benchAppFiles, benchConnection, UPSTREAM_SECRET, writeFiles } from './bench-app.ts';
import { listing, RECORD_COUNTS } from './records.ts';
import { allocatedPerCall } from './allocation.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'npm run bench:run --',
  summary:
    "Measures the engine's own CPU per run without the network: runAction with a canned app response and the envelope's bytes, then each stage alone (build, parse, mapping, envelope), at 1, 10 and 100 records (--records for others, up to 10,000), with the heap bytes each allocates. Reports figures; never fails on speed.",
  options: {
    rounds: { type: 'string' as const, value: '<n>', description: 'alternating rounds (default 7)' },
    runs: { type: 'string' as const, value: '<n>', description: 'calls a round at 10 records, fewer in proportion above (default 5000)' },
    records: { type: 'string' as const, value: '<n,...>', description: `record counts, any of ${RECORD_COUNTS.join(', ')} (default 1,10,100)` },
  },
  examples: ['npm run bench:run', 'npm run bench:run -- --rounds=3 --runs=1000', 'npm run bench:run -- --records=1000,10000 --rounds=3'],
};

type Stage = { name: string; call: () => unknown };

async function main(rounds: number, callsAt10: number, counts: readonly number[]): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-run-cost-'));
  const definitionsDir = path.join(root, 'definitions');
  // The client below never connects: the base URL only has to be well-formed.
  await writeFiles(definitionsDir, benchAppFiles('http://127.0.0.1:9'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(root, 'data'), DEFINITIONS_DIR: definitionsDir, LOG_LEVEL: 'silent', EGRESS_ALLOW: '127.0.0.1/32' });
  const gateway = await startGateway(config, createLogger('silent'));
  try {
    const { services } = gateway;
    const version = services.definitions.current().appsBySlug.get(BENCH_APP)!.versions.get(1)!;
    const action = version.actions.get(BENCH_ACTION)!;
    const auth = version.auths.get('key')!;
    const now = new Date();
    const connection = benchConnection(services.keyring, version, 'con_bench_run_cost');
    const rows: (string | number)[][] = [];
    for (const records of counts) {
      // Above 10 records, fewer calls a round: the same CPU time a round whatever the size.
      const runs = Math.max(5, Math.round(records <= 10 ? callsAt10 : (callsAt10 * 10) / records));
      const bytes = Buffer.from(JSON.stringify(listing(records)));
      const headers = { 'content-type': 'application/json', 'content-length': String(bytes.length), date: now.toUTCString(), connection: 'keep-alive', 'keep-alive': 'timeout=5' };
      const answer = (url: string): OutboundResponse => ({ status: 200, headers: { ...headers }, ...parseBody(bytes, headers['content-type']), rawBody: bytes, rawBytes: bytes.length, wireBytes: bytes.length, durationMs: 1, url, redirects: 0 });
      const canned = { ...services.run, http: { ...services.http, close: async () => undefined, send: async (request: { url: string }) => answer(request.url) } };
      const run = { companyId: 'cmp_bench', version, action, connection, installation: null, endUser: null, arguments: { limit: records } };
      const plan = planOf(version, action);
      const actionMeta: ActionMeta = { id: action.id, slug: action.slug, operation: action.operation, query: { limit: records, view: 'full' }, body: null };
      const response = answer('http://127.0.0.1:9/api/records');
      const input = { ...responseFacts(response), action: actionMeta, arguments: { limit: records, view: 'full' } };
      const proposal = (await evaluateGuarded(action.response as never, input)) as Proposal;
      const facts = { status: 200, response: responseFacts(response), action: actionMeta, retries: 0, deletedId: undefined };
      const deps = { evaluateMapper: () => Promise.resolve(undefined), lookupOptions: () => Promise.resolve([]) };
      const stages: Stage[] = [
        { name: 'whole run (runAction + envelope bytes)', call: async () => envelopeBytes((await runAction(canned, run)).envelope) },
        { name: 'the request built (plan)', call: () => plan.build({ auth, host: { connection: { apiKey: UPSTREAM_SECRET }, metadata: {} }, arguments: { limit: records } }, deps) },
        { name: "the app's body parsed", call: () => parseBody(bytes, 'application/json') },
        { name: 'the response mapping', call: () => evaluateGuarded(action.response as never, input) },
        { name: "the envelope's rules and bytes", call: () => envelopeBytes(enforceEnvelope(proposal, facts)) },
      ];
      const cpu = new Map<string, number[]>(stages.map((s) => [s.name, []]));
      for (let r = 0; r <= rounds; r++) {
        for (const stage of r % 2 === 0 ? stages : [...stages].reverse()) {
          const start = process.cpuUsage();
          for (let i = 0; i < runs; i++) await stage.call();
          const used = process.cpuUsage(start);
          // Round 0 warms the code up and is not counted.
          if (r > 0) cpu.get(stage.name)!.push((used.user + used.system) / runs);
        }
      }
      // Allocation after the timed rounds (the profiler slows the calls it samples): a tenth of a round's calls each.
      for (const stage of stages) rows.push([records, stage.name, round(median(cpu.get(stage.name)!), 1), round((await allocatedPerCall(stage.call, Math.max(5, Math.round(runs / 10)))) / 1024, 2), runs]);
    }
    process.stdout.write(
      `${table(['records', 'what', 'CPU µs per call', 'KB allocated per call', 'calls a round'], rows)}\n(median of ${rounds} alternating rounds, this process; load average ${os
        .loadavg()
        .map((l) => round(l, 2))
        .join(' ')} on ${os.availableParallelism()} CPUs)\n`,
    );
  } finally {
    await gateway.stop();
    await fs.rm(root, { recursive: true, force: true });
  }
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const counts = { rounds: args.values.rounds ?? '7', runs: args.values.runs ?? '5000' };
  const bad = Object.entries(counts).find(([, value]) => !/^\d+$/.test(value.trim()) || Number(value) < 1);
  const records = String(args.values.records ?? '1,10,100')
    .split(',')
    .map(Number);
  const unknown = records.filter((n) => !(RECORD_COUNTS as readonly number[]).includes(n));
  if (bad || unknown.length > 0) {
    // A usage error (exit 2), not a run of NaN rounds or of a size the upstream has no body for.
    const problem = bad ? `--${bad[0]} must be an integer, 1 or more (got ${bad[1]})` : `--records: ${unknown.join(', ')} is not one of ${RECORD_COUNTS.join(', ')}`;
    process.stderr.write(`${problem}\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  } else {
    await main(Number(counts.rounds), Number(counts.runs), records);
  }
}
