import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type Router from '@koa/router';
import type { AppContext, AppState } from './context.ts';

/** Routers whose routes are served by direct lookup (servedDirectly), besides the root router that still knows them. */
const direct = new WeakSet<Router<AppState>>();

/**
 * Marks a feature router as one whose routes are looked up directly
 * (directRoutes), not matched by the root router: for routes on the hot path
 * (the run endpoints). Only plain templates (`/static/:param/...`) can be.
 */
export function servedDirectly(router: Router<AppState>): Router<AppState> {
  direct.add(router);
  return router;
}

/** Whether servedDirectly marked this router (the route-cost benchmark copies the marks). */
export function isServedDirectly(router: Router<AppState>): boolean {
  return direct.has(router);
}

interface DirectRoute {
  template: string;
  /** A static segment as it must appear, or null for a parameter. */
  segments: (string | null)[];
  names: string[];
  /** The route's middleware, composed once. */
  handler: Middleware<AppState>;
}

/**
 * The routes of the routers marked servedDirectly, answered without the root
 * router: @koa/router tests every route's regular expression on every request
 * and composes the matched route's middleware anew each time; here a request
 * is looked up by method and segment count, its static segments compared as
 * strings, and the route's middleware composed once, at start. A request that
 * does not match exactly (another method, a trailing slash, other letter
 * case) goes on to the root router, which still has these routes: its 405s
 * and its case-insensitive matching are unchanged. `root` is asked at start
 * whether it would choose the same route for each one (so no other route can
 * be shadowed); start fails if not.
 */
export function directRoutes(routers: Router<AppState>[], root: Router<AppState>): Middleware<AppState> {
  const byMethod = new Map<string, Map<number, DirectRoute[]>>();
  for (const router of routers) {
    if (!direct.has(router)) continue;
    for (const layer of router.stack) {
      if (layer.methods.length === 0) continue;
      const route = compile(layer.path, layer.stack as Middleware<AppState>[]);
      for (const method of layer.methods) {
        requireSameChoice(root, route, method);
        let bySize = byMethod.get(method);
        if (!bySize) byMethod.set(method, (bySize = new Map()));
        const list = bySize.get(route.segments.length) ?? [];
        bySize.set(route.segments.length, [...list, route]);
      }
    }
  }
  return (ctx, next) => {
    const bySize = byMethod.get(ctx.method);
    if (bySize === undefined) return next();
    const parts = ctx.path.split('/');
    const candidates = bySize.get(parts.length);
    if (candidates === undefined) return next();
    for (const route of candidates) {
      const params = paramsOf(route, parts);
      if (params === null) continue;
      matched(ctx, route.template, params);
      return route.handler(ctx, next);
    }
    return next();
  };
}

function compile(path: string | RegExp, stack: Middleware<AppState>[]): DirectRoute {
  if (typeof path !== 'string' || !/^(\/([A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]*))+$/.test(path)) {
    throw new Error(`direct routes take plain templates (/static/:param), not ${String(path)}`);
  }
  const segments = path.split('/').map((segment) => (segment.startsWith(':') ? null : segment));
  const names = path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
  return { template: path, segments, names, handler: compose(stack) };
}

/** The route's parameters from the path's segments (decoded as the router decodes them), or null when a static segment differs or a parameter is empty. */
function paramsOf(route: DirectRoute, parts: string[]): Record<string, string> | null {
  const { segments } = route;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === null ? parts[i] === '' : segment !== parts[i]) return null;
  }
  const params: Record<string, string> = {};
  let n = 0;
  for (let i = 0; i < segments.length; i++) if (segments[i] === null) params[route.names[n++]!] = safeDecode(parts[i]!);
  return params;
}

/** What @koa/router sets on a context when it dispatches a route, for the handlers, the metrics' and the traces' route label. */
function matched(ctx: AppContext, template: string, params: Record<string, string>): void {
  const routed = ctx as AppContext & { params: Record<string, string>; _matchedRoute: string; routerPath: string };
  routed.params = params;
  (ctx.request as unknown as { params: Record<string, string> }).params = params;
  routed._matchedRoute = template;
  routed.routerPath = template;
}

/** As @koa/router decodes a parameter: a malformed escape is kept as it is. */
function safeDecode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The root router, given a path this route matches, must run this route and no other. */
function requireSameChoice(root: Router<AppState>, route: DirectRoute, method: string): void {
  const sample = route.segments.map((segment) => segment ?? 'x').join('/');
  const chosen = root.match(sample, method).pathAndMethod.filter((layer) => layer.methods.length > 0);
  if (chosen.length !== 1 || chosen[0]!.path !== route.template) {
    throw new Error(`direct route ${method} ${route.template}: the router would run ${chosen.map((layer) => String(layer.path)).join(', ') || 'nothing'} for ${sample}`);
  }
}
