/**
 * What the Prometheus metrics cost (issue 19, 3a): the CPU the metrics add to
 * one request and to one run, and the time and size of one scrape of a busy
 * gateway's registry. In-process and alone (no gateway, no network), so the
 * figure is the metrics' own work, not noise from the rest of a request.
 *
 *   node --import tsx scripts/bench/metrics-cost.ts            # 200000 iterations
 *   BENCH_METRICS_ITERATIONS=50000 node --import tsx scripts/bench/metrics-cost.ts
 *
 * It reports figures and never fails on speed.
 */
import { createGatewayMetrics } from '../../engine/platform/metrics/gateway-metrics.ts';

const ITERATIONS = Number(process.env.BENCH_METRICS_ITERATIONS ?? 200_000);
const ROUTES = 60;
const APPS = 50;
const ACTIONS = 10;

const metrics = createGatewayMetrics();
const routes = Array.from({ length: ROUTES }, (_, i) => `/v2/feature-${i}/:id`);
const statuses = ['200', '201', '400', '404', '500'];

/** What the HTTP middleware and the timed store do for one API request that reads the store twice. */
function request(i: number): void {
  const labels = { route: routes[i % ROUTES]!, method: 'GET', status: statuses[i % statuses.length]! };
  for (const operation of ['findOne', 'find']) metrics.storeDuration.startTimer({ collection: 'connections', operation })();
  metrics.httpRequests.inc(labels);
  metrics.httpDuration.observe(labels, 0.003);
}

/** What a run adds on top: one app call counted and timed, the run counted by outcome. */
function run(i: number): void {
  const app = `app-${i % APPS}`;
  const action = `action-${i % ACTIONS}`;
  const labels = { app, action, status: statuses[i % 3]! };
  metrics.appCalls.inc(labels);
  metrics.appCallDuration.observe(labels, 0.08);
  metrics.runs.inc({ app, action, outcome: 'success' });
}

function cpuMicrosPer(work: (i: number) => void): number {
  for (let i = 0; i < 10_000; i++) work(i); // warm-up: every label set exists, the code is optimised
  const before = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) work(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ITERATIONS;
}

const perRequest = cpuMicrosPer(request);
const perRun = cpuMicrosPer(run);
// A scrape of the registry as the loops left it: every route x status, every app x action x status.
const scrapes: number[] = [];
let bytes = 0;
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  const text = await metrics.registry.metrics();
  scrapes.push(performance.now() - started);
  bytes = Buffer.byteLength(text);
}
scrapes.sort((a, b) => a - b);
const series = (await metrics.registry.getMetricsAsJSON()).reduce((n, m) => n + m.values.length, 0);

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
process.stdout.write(
  `${JSON.stringify(
    {
      node: process.version,
      iterations: ITERATIONS,
      cpuMicrosPerRequest: round(perRequest),
      cpuMicrosPerRunExtra: round(perRun),
      scrape: { routes: ROUTES, appActions: APPS * ACTIONS, series, bytes, medianMs: round(scrapes[10]!), maxMs: round(scrapes[19]!) },
    },
    null,
    2,
  )}\n`,
);
