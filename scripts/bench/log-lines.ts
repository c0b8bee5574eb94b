/**
 * One child of `npm run bench:logs` (lines part): writes BENCH_LINES request log lines, shaped like the
 * gateway's (engine/http/server/middleware/request-log.ts), 20 at a time with a turn of the event loop between
 * batches as between requests, through createLogger's destination (asynchronous) or pino's synchronous one
 * (BENCH_LOG_SYNC=1), to whatever its stdout is. Reports the event loop's time per line (the median batch:
 * robust to the process being preempted on a busy machine), the process's CPU per line (every thread), and
 * the wall time until every line was written.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createLogger, flushLogs } from '../../engine/platform/log/logger.ts';
import { requestLineLogger } from '../../engine/http/server/middleware/request-log.ts';
import { serveAsChild } from './child.ts';

const lines = Number(process.env.BENCH_LINES ?? 100_000);
const sync = process.env.BENCH_LOG_SYNC === '1';
const destination = sync ? pino.destination({ dest: 1, sync: true }) : undefined;
// As the request log middleware writes them: its own child logger (no redaction: the line names its fields).
const logger = requestLineLogger(createLogger('info', destination));
const BATCH = 20;
const reqIds = Array.from({ length: 64 }, () => randomUUID());

const batches: number[] = [];
const cpuBefore = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < lines; i += BATCH) {
  const t0 = performance.now();
  for (let j = 0; j < BATCH; j++) {
    logger.info({ reqId: reqIds[(i + j) % reqIds.length], method: 'POST', path: '/v2/universal/apps/bench/actions/list-records/run', status: 200, durationMs: 1.37 }, 'request');
  }
  batches.push(performance.now() - t0);
  await new Promise((resolve) => setImmediate(resolve));
}
await flushLogs(60_000);
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
batches.sort((a, b) => a - b);
const result = {
  lines,
  eventLoopUsPerLine: (batches[Math.floor(batches.length / 2)]! * 1000) / BATCH,
  cpuUsPerLine: (cpu.user + cpu.system) / lines,
  wallMs,
};
serveAsChild({ result }, async () => {});
