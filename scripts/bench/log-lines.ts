/**
 * One child of `npm run bench:logs` (lines part): writes BENCH_LINES request log lines, shaped like the
 * gateway's (engine/http/server/middleware/request-log.ts), 20 at a time with a turn of the event loop between
 * batches as between requests, through createLogger's destination (asynchronous) or pino's synchronous one
 * (BENCH_LOG_SYNC=1), to whatever its stdout is. Reports the event loop's time per line (the median batch:
 * robust to the process being preempted on a busy machine), the process's CPU per line (every thread), the
 * wall time until every line was written, and then the heap bytes a line allocates (allocation.ts: V8's sampling
 * heap profiler, garbage included, over a tenth as many lines again, the batches and turns as before).
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createLogger, flushLogs } from '../../engine/platform/log/logger.ts';
import { requestLineLogger } from '../../engine/http/server/middleware/request-log.ts';
import { serveAsChild } from './child.ts';
import { allocatedPerCall } from './allocation.ts';

const lines = Number(process.env.BENCH_LINES ?? 100_000);
const sync = process.env.BENCH_LOG_SYNC === '1';
const destination = sync ? pino.destination({ dest: 1, sync: true }) : undefined;
// As the request log middleware writes them: its own child logger (no redaction: the line names its fields).
const logger = requestLineLogger(createLogger('info', destination));
const BATCH = 20;
const reqIds = Array.from({ length: 64 }, () => randomUUID());

const batches: number[] = [];
/** One turn's lines (the caller gives the turn), as the request log writes them between requests. */
function batch(first: number): void {
  for (let j = 0; j < BATCH; j++) {
    logger.info({ reqId: reqIds[(first + j) % reqIds.length], method: 'POST', path: '/v2/universal/apps/bench/actions/list-records/run', status: 200, durationMs: 1.37 }, 'request');
  }
}
const cpuBefore = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < lines; i += BATCH) {
  const t0 = performance.now();
  batch(i);
  batches.push(performance.now() - t0);
  await new Promise((resolve) => setImmediate(resolve));
}
await flushLogs(60_000);
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
let next = 0;
const allocatedBatches = Math.max(1, Math.round(lines / BATCH / 10));
const bytesPerBatch = await allocatedPerCall(async () => {
  batch(next);
  next += BATCH;
  await new Promise((resolve) => setImmediate(resolve));
}, allocatedBatches);
await flushLogs(60_000);
batches.sort((a, b) => a - b);
const result = {
  lines,
  eventLoopUsPerLine: (batches[Math.floor(batches.length / 2)]! * 1000) / BATCH,
  cpuUsPerLine: (cpu.user + cpu.system) / lines,
  wallMs,
  kbAllocatedPerLine: bytesPerBatch / BATCH / 1024,
};
serveAsChild({ result }, async () => {});
