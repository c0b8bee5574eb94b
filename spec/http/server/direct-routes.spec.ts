import { expect } from 'chai';
import Koa from 'koa';
import Router from '@koa/router';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppState } from '../../../engine/http/server/context.ts';
import { directRoutes, servedDirectly } from '../../../engine/http/server/direct-routes.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

/** An app with `/v2/things/:thingId/parts/:partId` (POST, behind a middleware) and another route, served directly or through the router alone. */
function appWith(options: { direct: boolean }): Koa<AppState> {
  const app = new Koa<AppState>();
  const things = new Router<AppState>();
  const stamp: Koa.Middleware<AppState> = async (ctx, next) => {
    ctx.set('X-Stamped', 'yes');
    await next();
  };
  things.post('/v2/things/:thingId/parts/:partId', stamp, (ctx) => {
    ctx.body = { params: ctx.params, route: (ctx as { _matchedRoute?: string })._matchedRoute, through: ctx.get('X-Through') };
  });
  const others = new Router<AppState>();
  others.get('/v2/things/:thingId', (ctx) => {
    ctx.body = { other: ctx.params.thingId };
  });
  const routers = [options.direct ? servedDirectly(things) : things, others];
  const root = new Router<AppState>();
  for (const router of routers) root.use(router.routes());
  if (options.direct) app.use(directRoutes(routers, root));
  app.use(root.routes());
  app.use(root.allowedMethods());
  return app;
}

async function serve(app: Koa<AppState>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('direct routes (the run endpoints looked up without the root router)', () => {
  it('answers every path and method exactly as the router alone does', async () => {
    const routed = await serve(appWith({ direct: false }));
    const direct = await serve(appWith({ direct: true }));
    try {
      const requests: [string, string][] = [
        ['POST', '/v2/things/a/parts/b'],
        ['POST', '/v2/things/%41%2Fz/parts/%C3%A9'],
        ['POST', '/v2/things/%E0%A4%A/parts/b'],
        ['POST', '/v2/things/a/parts/b/'],
        ['POST', '/V2/Things/a/PARTS/b'],
        ['POST', '/v2/things//parts/b'],
        ['POST', '/v2/things/a/parts'],
        ['POST', '/v2/things/a/parts/b/c'],
        ['POST', '/v2/things/a/parts/b?x=1'],
        ['GET', '/v2/things/a/parts/b'],
        ['PUT', '/v2/things/a/parts/b'],
        ['GET', '/v2/things/a'],
      ];
      for (const [method, path] of requests) {
        const answers = await Promise.all(
          [routed, direct].map(async (server) => {
            const response = await fetch(server.url + path, { method, headers: { 'X-Through': 'test' } });
            return { status: response.status, allow: response.headers.get('allow'), stamped: response.headers.get('x-stamped'), body: await response.text() };
          }),
        );
        expect(answers[1], `${method} ${path}`).to.deep.equal(answers[0]);
      }
      const first = await (await fetch(`${direct.url}/v2/things/%41%2Fz/parts/%C3%A9`, { method: 'POST' })).json();
      expect(first).to.deep.equal({ params: { thingId: 'A/z', partId: 'é' }, route: '/v2/things/:thingId/parts/:partId', through: '' });
    } finally {
      await routed.close();
      await direct.close();
    }
  });

  it('refuses at start a direct route the router would not choose alone (another route shadowing it)', () => {
    const shadow = new Router<AppState>();
    shadow.post('/v2/things/:anything/parts/:partId', (ctx) => {
      ctx.body = 'shadow';
    });
    const things = servedDirectly(new Router<AppState>());
    things.post('/v2/things/:thingId/parts/:partId', (ctx) => {
      ctx.body = 'thing';
    });
    const root = new Router<AppState>();
    for (const router of [shadow, things]) root.use(router.routes());
    expect(() => directRoutes([shadow, things], root)).to.throw(
      'direct route POST /v2/things/:thingId/parts/:partId: the router would run /v2/things/:anything/parts/:partId, /v2/things/:thingId/parts/:partId for /v2/things/x/parts/x',
    );
  });

  it('refuses a template it cannot look up directly', () => {
    const things = servedDirectly(new Router<AppState>());
    things.post('/v2/things/:thingId{.:format}', (ctx) => {
      ctx.body = 'thing';
    });
    const root = new Router<AppState>();
    root.use(things.routes());
    expect(() => directRoutes([things], root)).to.throw('direct routes take plain templates (/static/:param), not /v2/things/:thingId{.:format}');
  });

  describe('in the gateway', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ METRICS_TOKEN: 'metrics-token-0123456789abcdef0123' });
    });
    after(async () => await gw.stop());

    it('runs through the direct route (auth first), and counts it under its template', async () => {
      const refused = await call(gw, 'POST', '/v2/universal/apps/nope/actions/nothing/run', { body: {}, auth: null });
      expect(refused.status).to.equal(401);
      const unknown = await call(gw, 'POST', '/v2/universal/apps/nope/actions/nothing/run', { body: { connectionId: 'con_0123456789abcdef01234567' } });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('APP_NOT_FOUND');
      const wrongMethod = await call(gw, 'GET', '/v2/universal/apps/nope/actions/nothing/run');
      expect(wrongMethod.status).to.equal(405);
      const metrics = await fetch(`${gw.url}/metrics`, { headers: { Authorization: 'Bearer metrics-token-0123456789abcdef0123' } });
      const text = await metrics.text();
      expect(text).to.include('route="/v2/universal/apps/:appSlug/actions/:actionSlug/run",method="POST",status="404"');
      expect(text).to.include('route="/v2/universal/apps/:appSlug/actions/:actionSlug/run",method="POST",status="401"');
    });
  });
});
