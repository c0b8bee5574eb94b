/**
 * One load run with autocannon: fixed connections and duration, after a
 * warm-up whose figures are dropped. Latency percentiles are computed from
 * every response's own time (autocannon's histogram keeps whole
 * milliseconds, too coarse for a 1 ms target).
 */
import autocannon, { type Options, type Result } from 'autocannon';
import { percentile, round } from './stats.ts';

export interface LoadTarget {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  /** How many of each status outside 2xx were answered (a round with any is invalid, and says which). */
  otherStatuses?: Record<string, number>;
}

function run(options: Options, onLatency?: (ms: number) => void, onOther?: (status: number) => void): Promise<Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    if (onLatency) {
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        if (status >= 200 && status < 300) onLatency(ms);
        else onOther?.(status);
      });
    }
  });
}

export async function measure(target: LoadTarget, settings: LoadSettings): Promise<LoadFigures> {
  const options: Options = {
    url: target.url,
    method: target.method,
    connections: settings.connections,
    pipelining: 1,
    timeout: 10,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body !== undefined ? { body: target.body } : {}),
  };
  if (settings.warmupSeconds > 0) await run({ ...options, duration: settings.warmupSeconds });
  const latencies: number[] = [];
  const started = performance.now();
  const otherStatuses: Record<string, number> = {};
  const result = await run(
    { ...options, duration: settings.durationSeconds },
    (ms) => latencies.push(ms),
    (status) => (otherStatuses[status] = (otherStatuses[status] ?? 0) + 1),
  );
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
  return {
    requestsPerSecond: round(latencies.length / elapsed, 0),
    p50Ms: round(percentile(sorted, 50), 3),
    p90Ms: round(percentile(sorted, 90), 3),
    p99Ms: round(percentile(sorted, 99), 3),
    meanMs: round(mean, 3),
    requests: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: round(elapsed, 2),
    ...(Object.keys(otherStatuses).length ? { otherStatuses } : {}),
  };
}
