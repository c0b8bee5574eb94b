/**
 * The real gateway (its own process): startGateway with a temp DATA_DIR and
 * definitions folder, the bench app pointing at the local upstream, and one
 * connection holding the upstream's API key. Reports what the load generator
 * sends: POST /v2/universal/apps/bench/actions/list-records/run.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../engine/config/config.ts';
import { startGateway } from '../../engine/gateway.ts';
import { pino, type DestinationStream } from 'pino';
import { createLogger, STDOUT_FLUSH_MS } from '../../engine/platform/log/logger.ts';
import { BENCH_ACTION, BENCH_APP, benchAppFiles, UPSTREAM_SECRET, writeFiles } from './bench-app.ts';
import { serveAsChild } from './child.ts';

const upstream = process.env.BENCH_UPSTREAM_URL;
if (!upstream) throw new Error('BENCH_UPSTREAM_URL is not set');
const API_KEY = 'bench-api-key-0123456789abcdef';

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-gw-'));
const definitionsDir = path.join(root, 'definitions');
await writeFiles(definitionsDir, benchAppFiles(upstream));

const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: path.join(root, 'data'),
  DEFINITIONS_DIR: definitionsDir,
  BOOTSTRAP_API_KEY: API_KEY,
  // silent: autocannon hangs up on in-flight requests when a run ends, and each is logged as an error with its stack.
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
  EGRESS_ALLOW: '127.0.0.1/32',
  // Tracing is off unless the orchestrator sets OTEL_* (npm run bench:tracing does).
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_'))),
});
// BENCH_LOG_SYNC=1: pino's synchronous stdout destination, what the gateway used before, for the logs benchmark to compare;
// BENCH_LOG_BATCH_BYTES=32768: the asynchronous one with batches of that size instead of the gateway's 4 KiB, lines as bytes as logger.ts hands them.
const destination = process.env.BENCH_LOG_SYNC === '1' ? pino.destination({ dest: 1, sync: true }) : process.env.BENCH_LOG_BATCH_BYTES ? batchedStdout(Number(process.env.BENCH_LOG_BATCH_BYTES)) : undefined;
const gateway = await startGateway(config, createLogger(config.logLevel, destination));
const url = `http://127.0.0.1:${gateway.port}`;
const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const created = await fetch(`${url}/v2/connections`, { method: 'POST', headers, body: JSON.stringify({ appSlug: BENCH_APP, credentials: { apiKey: UPSTREAM_SECRET } }) });
if (created.status !== 201 && created.status !== 200) throw new Error(`creating the connection answered ${created.status}: ${await created.text()}`);
const connectionId = ((await created.json()) as { data: { id: string } }).data.id;

serveAsChild({ url, path: `/v2/universal/apps/${BENCH_APP}/actions/${BENCH_ACTION}/run`, headers, connectionId }, async () => {
  await gateway.stop();
  await fs.rm(root, { recursive: true, force: true });
});

function batchedStdout(batchBytes: number): DestinationStream {
  const batched = pino.destination({ dest: 1, sync: false, minLength: batchBytes, maxWrite: Math.max(16 * 1024, batchBytes * 2), periodicFlush: STDOUT_FLUSH_MS, contentMode: 'buffer' });
  return { write: (line: string) => batched.write(Buffer.from(line) as unknown as string) };
}
