/**
 * `node --import tsx scripts/bench/request-line-cost.ts`: the CPU one request
 * log line of a run costs to build and serialise, in this process, to a stream
 * that drops it: through the gateway's logger (its redaction applied, as every
 * line was before issue 21), through requestLineLogger (the request log
 * middleware's child logger, without redaction, as before issue 31), and
 * written out by requestLine (what the middleware writes since issue 31).
 * Median of 5 x N lines.
 */
import os from 'node:os';
import { Writable } from 'node:stream';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { createLogger } from '../../engine/platform/log/logger.ts';
import { requestLineLogger } from '../../engine/http/server/middleware/request-log.ts';
import { directStream, requestLine } from '../../engine/http/server/middleware/request-line.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'node --import tsx scripts/bench/request-line-cost.ts',
  summary: "Measures one run's request log line: the gateway's redacting logger against the request log's own child logger; CPU µs per line.",
  options: { lines: { type: 'string' as const, value: '<n>', description: 'lines per measurement (default 100000)' } },
  examples: ['node --import tsx scripts/bench/request-line-cost.ts'],
};

function main(count: number): void {
  const drop = new Writable({ write: (_chunk, _encoding, done) => done() });
  const redacting = createLogger('info', drop);
  const lines = requestLineLogger(redacting);
  const stream = directStream(lines)!;
  const line = {
    reqId: 'f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f',
    method: 'POST',
    path: '/v2/universal/apps/bench/actions/list-records/run',
    status: 200,
    durationMs: 0.81,
    companyId: 'cmp_0123456789abcdef01234567',
    app: 'bench',
    action: 'list-records',
    version: '1',
    connectionId: 'con_0123456789abcdef01234567',
    upstreamStatus: 200,
    upstreamMs: 0.42,
    retries: 0,
    outcome: 'success',
  };
  const { reqId, method, path, status, durationMs, ...run } = line;
  const ways: Record<string, () => void> = {
    'gateway logger (redaction applied)': () => redacting.info({ ...line }, 'request'),
    'requestLineLogger (no redaction)': () => lines.info({ ...line }, 'request'),
    'requestLine, written to the destination': () => stream.write(requestLine({ reqId, method, path, status, durationMs, run: { ...run, outcome: 'success' } }, Date.now())),
  };
  const figures = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
  for (let r = 0; r < 5; r++) {
    for (const [name, write] of Object.entries(ways)) {
      const started = process.cpuUsage();
      for (let i = 0; i < count; i++) write();
      const used = process.cpuUsage(started);
      figures.get(name)!.push(round((used.user + used.system) / count, 2));
    }
  }
  process.stdout.write(
    `${table(
      ['logger', 'CPU µs per line (median of 5)', 'all 5'],
      [...figures].map(([name, all]) => [name, median(all), all.join(' ')]),
    )}\n(${count} lines per measurement; load average ${os.loadavg().map((l) => round(l, 2)).join(' ')} on ${os.availableParallelism()} CPUs)\n`,
  );
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) main(Number(args.values.lines ?? 100_000));
