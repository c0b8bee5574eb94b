/**
 * The tracing instrumentation of one run by itself (its own process, a child
 * of tracing-cost.ts): the real server-span middleware, a traced store read,
 * a traced app call (traceparent injected) and a traced response mapping
 * around work that does nothing, BENCH_RUNS times, each run followed by a
 * turn of the event loop (setImmediate) so the batch processor can export.
 * BENCH_TRACING=on starts the SDK as the gateway does (OTLP/HTTP to the
 * orchestrator's sink, OTEL_EXPORTER_OTLP_ENDPOINT); off, the SDK is not
 * loaded and each point is a null check; BENCH_BARE=1 runs the same work
 * without the instrumentation at all. Reports the process's CPU per run,
 * the flush at the end included.
 */
import { createLogger } from '../../engine/platform/log/logger.ts';
import { appCall, startTracing, traceCall, traceMapping, tracingFromEnv } from '../../engine/platform/tracing/index.ts';
import { traceRequests } from '../../engine/http/observability/server-span.ts';
import { COLLECTION_NAMES, type Store } from '../../engine/platform/store/port.ts';
import { serveAsChild } from './child.ts';

const runs = Number(process.env.BENCH_RUNS ?? 20_000);
const tracing = await startTracing(tracingFromEnv(process.env), createLogger('silent'));
const record = { id: 'connection-1' };
const collection = { insert: async () => record, findOne: async () => record, find: async () => [record], count: async () => 1, updateOne: async () => true, deleteOne: async () => true, deleteMany: async () => 1 };
const store = tracing.store({ kind: 'embedded', ping: async () => {}, close: async () => {}, ...Object.fromEntries(COLLECTION_NAMES.map((name) => [name, collection])) } as unknown as Store);
const middleware = traceRequests();
const run = { version: { app: { slug: 'bench' }, version: 1 }, action: { id: 'list-records' } };

async function oneRun(): Promise<void> {
  const ctx = { method: 'POST', path: '/v2/universal/apps/bench/actions/list-records/run', protocol: 'http', headers: {}, state: { requestId: 'request-1' }, status: 404, body: undefined as unknown, _matchedRoute: undefined as string | undefined };
  await middleware(ctx as never, async () => {
    ctx._matchedRoute = '/v2/universal/apps/:appSlug/actions/:actionSlug/run';
    await store.connections.findOne({ id: record.id });
    const hop = { method: 'GET', url: new URL('http://127.0.0.1:4010/api/records?limit=10'), headers: { 'user-agent': 'bench' } as Record<string, string> };
    await appCall(run, 0, () => traceCall(hop, async () => ({ status: 200, redirects: 0 })));
    await traceMapping({ at: { file: 'bench/versions/1/actions/list-records.yaml', line: 12 } }, async () => [record]);
    ctx.status = 200;
    ctx.body = { success: true };
  });
}

/** The same work with no instrumentation at all (BENCH_BARE=1): what `off` is measured against. */
async function bareRun(): Promise<void> {
  const ctx = { method: 'POST', path: '/v2/universal/apps/bench/actions/list-records/run', protocol: 'http', headers: {}, state: { requestId: 'request-1' }, status: 404, body: undefined as unknown, _matchedRoute: undefined as string | undefined };
  await (async () => {
    ctx._matchedRoute = '/v2/universal/apps/:appSlug/actions/:actionSlug/run';
    await collection.findOne();
    const hop = { method: 'GET', url: new URL('http://127.0.0.1:4010/api/records?limit=10'), headers: { 'user-agent': 'bench' } as Record<string, string> };
    await (async () => ({ status: 200, redirects: 0, hop }))();
    await (async () => [record])();
    ctx.status = 200;
    ctx.body = { success: true };
  })();
}

const oneOf = process.env.BENCH_BARE === '1' ? bareRun : oneRun;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
for (let i = 0; i < 2_000; i++) {
  await oneOf();
  await turn();
}
const before = process.cpuUsage();
for (let i = 0; i < runs; i++) {
  await oneOf();
  await turn();
}
await tracing.shutdown();
const used = process.cpuUsage(before);
serveAsChild({ result: { runs, cpuUsPerRun: (used.user + used.system) / runs } }, async () => {});
