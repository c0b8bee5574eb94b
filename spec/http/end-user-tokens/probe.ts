import Koa from 'koa';
import Router from '@koa/router';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Services } from '../../../engine/http/services.ts';
import type { AppState } from '../../../engine/http/server/context.ts';
import { errorEnvelope } from '../../../engine/http/server/middleware/errors.ts';
import { requestId } from '../../../engine/http/server/middleware/request-id.ts';
import { requireEndUserToken } from '../../../engine/http/guards/require-end-user-token.ts';

/**
 * The run endpoint that will use requireEndUserToken comes later; until then
 * the check is driven over HTTP through this probe, on the gateway's own store
 * and config. GET /probe answers the admitted end user.
 */
export async function startTokenProbe(services: Services): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa<AppState>();
  app.use(requestId());
  app.use(errorEnvelope(services.logger));
  const router = new Router<AppState>();
  router.get('/probe', requireEndUserToken(services), (ctx) => {
    ctx.body = ctx.state.endUser;
  });
  app.use(router.routes());
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
