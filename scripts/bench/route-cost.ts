/**
 * `node --import tsx scripts/bench/route-cost.ts`: what resolving the run
 * route costs per request, in this process (CPU time, so a busy machine
 * skews it less than a load test). The gateway's real routers (every
 * feature's routes, as createApp mounts them), each route's middleware
 * replaced by one that only answers, dispatched for
 * `POST /v2/universal/apps/bench/actions/list-records/run`: through the root
 * router (@koa/router: every route's regular expression tried, the matched
 * route's middleware composed anew), and through directRoutes (looked up by
 * method and segments, composed once). Also the root router for a route it
 * still serves (`GET /v2/connections/:connectionId`) and for no route.
 */
import Router from '@koa/router';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../engine/config/config.ts';
import { startGateway } from '../../engine/gateway.ts';
import { createLogger } from '../../engine/platform/log/logger.ts';
import { featureRoutes } from '../../engine/http/server/app.ts';
import type { AppState } from '../../engine/http/server/context.ts';
import { directRoutes, isServedDirectly, servedDirectly } from '../../engine/http/server/direct-routes.ts';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { round, table } from './stats.ts';

export const cli = {
  command: 'node --import tsx scripts/bench/route-cost.ts',
  summary: "Measures the run route's resolution per request: the root router (every route tried, middleware composed per request) against the direct lookup; CPU µs per dispatch.",
  options: { iterations: { type: 'string' as const, value: '<n>', description: 'dispatches per measurement (default 200000)' } },
  examples: ['node --import tsx scripts/bench/route-cost.ts'],
};

/** Routers with the same routes (paths, methods, marked direct or not) as the gateway's, each route only answering. */
function answeringCopies(routers: Router<AppState>[]): Router<AppState>[] {
  return routers.map((original) => {
    const copy = new Router<AppState>();
    for (const layer of original.stack) {
      if (layer.methods.length === 0) continue;
      copy.register(layer.path, layer.methods.filter((m) => m !== 'HEAD'), [(ctx) => void (ctx.status = 200)]);
    }
    return isServedDirectly(original) ? servedDirectly(copy) : copy;
  });
}

async function main(iterations: number): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-route-cost-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: root, LOG_LEVEL: 'silent' });
  const gateway = await startGateway(config, createLogger('silent'));
  try {
    const routers = answeringCopies(featureRoutes(gateway.services));
    const rootRouter = new Router<AppState>();
    for (const router of routers) rootRouter.use(router.routes());
    const viaRouter = rootRouter.routes();
    const viaDirect = directRoutes(routers, rootRouter);
    const next = async () => {};
    const dispatch = async (middleware: (ctx: never, next: () => Promise<void>) => unknown, method: string, requestPath: string) => {
      const started = process.cpuUsage();
      for (let i = 0; i < iterations; i++) {
        const ctx = { method, path: requestPath, request: {}, state: {}, status: 404 };
        await middleware(ctx as never, next);
      }
      const used = process.cpuUsage(started);
      return round((used.user + used.system) / iterations, 3);
    };
    const run = '/v2/universal/apps/bench/actions/list-records/run';
    const cases: [string, () => Promise<number>][] = [
      ['run route, root router', () => dispatch(viaRouter as never, 'POST', run)],
      ['run route, direct lookup', () => dispatch(viaDirect as never, 'POST', run)],
      ['GET /v2/connections/:connectionId, root router', () => dispatch(viaRouter as never, 'GET', '/v2/connections/con_0123')],
      ['no route (404), root router', () => dispatch(viaRouter as never, 'GET', '/v2/nothing-here')],
      ['not a direct route: direct lookup passing on', () => dispatch(viaDirect as never, 'GET', '/v2/connections/con_0123')],
    ];
    const figures = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (let r = 0; r < 5; r++) for (const [name, measure] of r % 2 ? [...cases].reverse() : cases) figures.get(name)!.push(await measure());
    const routes = rootRouter.stack.filter((layer) => layer.methods.length > 0).length;
    process.stdout.write(
      `${table(
        ['dispatch', 'CPU µs (median of 5)', 'all 5'],
        cases.map(([name]) => {
          const all = figures.get(name)!;
          return [name, [...all].sort((a, b) => a - b)[2]!, all.join(' ')];
        }),
      )}\n(${routes} routes in the root router; ${iterations} dispatches per measurement; load average ${os.loadavg().map((l) => round(l, 2)).join(' ')} on ${os.availableParallelism()} CPUs)\n`,
    );
  } finally {
    await gateway.stop();
    await fs.rm(root, { recursive: true, force: true });
  }
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) await main(Number(args.values.iterations ?? 200_000));
