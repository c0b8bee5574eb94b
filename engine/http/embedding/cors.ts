import type { Middleware, Next } from 'koa';
import { GatewayError } from '../../platform/errors/index.ts';
import { V1_ENDPOINTS } from '../openapi/v1-endpoints.ts';
import { V2_ENDPOINTS } from '../openapi/v2-endpoints.ts';
import { anyRoutedPattern, routedPattern } from '../openapi/path-pattern.ts';
import type { AppContext, AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { originOf } from '../../tenancy/embedding/origins.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';

/** The request headers a page may send to an end-user endpoint. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-Id';
/** The response headers a page may read besides the safelisted ones. */
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate';
/** How long a browser may keep a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

/** An endpoint's path pattern and the methods an end-user token may call it with. */
interface BrowserEndpoint {
  /** As the OpenAPI document writes it, `{name}` for a path parameter. */
  path: string;
  /** The request paths the router routes to it (routedPattern: any letter case, a trailing slash or not). */
  pattern: RegExp;
  methods: Set<string>;
  /**
   * The proxy's: a page may send the headers it asks to (each a valid name),
   * for the proxy forwards only those the app allows and never a credential
   * (core/proxy/proxy-headers.ts). Elsewhere only ALLOWED_HEADERS.
   */
  anyHeaders: boolean;
}

/**
 * The endpoints open to browsers: exactly those the OpenAPI documents say an
 * end-user token may call (endUserToken or apiKeyOrEndUserToken), so a new
 * end-user route is opened by describing it, and an API-key route never is.
 */
export function browserEndpoints(): BrowserEndpoint[] {
  const byPath = new Map<string, BrowserEndpoint>();
  for (const endpoint of [...V1_ENDPOINTS, ...V2_ENDPOINTS]) {
    if (endpoint.security !== 'endUserToken' && endpoint.security !== 'apiKeyOrEndUserToken') continue;
    let entry = byPath.get(endpoint.path);
    if (!entry) {
      // A preflight is answered for the paths its request will be routed by, or a page's request to /V2/END-USER/APPS
      // (or /v2/end-user/apps/) is served while its preflight is refused, and the answer is not readable.
      const proxy = endpoint.path.startsWith('/v2/end-user/proxy/');
      byPath.set(endpoint.path, (entry = { path: endpoint.path, pattern: routedPattern(endpoint.path), methods: new Set(), anyHeaders: proxy }));
    }
    entry.methods.add(endpoint.method.toUpperCase());
  }
  return [...byPath.values()];
}

/**
 * CORS for the end-user endpoints, from the companies' allowed origins
 * (PUT /v2/embedding). A preflight carries no token, so it cannot know the
 * company: it is answered for an origin that some company allows. That only
 * lets the browser send the request; the request still needs a valid
 * end-user token, requireEndUserToken refuses it (403) when the token's
 * company does not allow the page's origin, and the answer carries
 * Access-Control-Allow-Origin only then. An origin no company allows, and
 * every API-key endpoint, get a refused preflight and no CORS headers: an
 * API key never belongs in a browser.
 */
export function endUserCors(services: Services): Middleware<AppState> {
  const endpoints = browserEndpoints();
  const anyCompanyAllows = async (origin: string) => (await services.store.embeddingSettings.count({ allowedOrigins: origin })) > 0;
  /** Any browser endpoint's path, in one expression: a request without Origin (a backend's) needs only to know whether to add Vary. */
  const anyEndpoint = anyRoutedPattern(endpoints.map((e) => e.path));
  return (ctx, next) => {
    const origin = ctx.req.headers.origin;
    if (!origin) {
      if (anyEndpoint.test(ctx.path)) ctx.vary('Origin');
      return next();
    }
    return browserRequest(ctx, next, origin);
  };

  async function browserRequest(ctx: AppContext, next: Next, origin: string): Promise<void> {
    const endpoint = endpoints.find((e) => e.pattern.test(ctx.path));
    if (endpoint) ctx.vary('Origin');

    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      if (!endpoint) {
        throw GatewayError.of('FORBIDDEN', `${ctx.path} is not open to browsers: only the end-user-token endpoints answer cross-origin requests; call API-key endpoints from your backend`);
      }
      if (!(await anyCompanyAllows(origin))) {
        throw GatewayError.of('FORBIDDEN', `origin ${origin} is not an allowed origin: add it to allowedOrigins with PUT /v2/embedding`);
      }
      ctx.vary('Access-Control-Request-Method');
      ctx.vary('Access-Control-Request-Headers');
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', [...endpoint.methods].join(', '));
      ctx.set('Access-Control-Allow-Headers', endpoint.anyHeaders ? requestedHeaders(ctx.get('Access-Control-Request-Headers')) : ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      ctx.status = 204;
      return;
    }

    if (!endpoint) return await next();
    try {
      await next();
    } finally {
      // The token's company allows the origin (checked before the handler ran); or no one was admitted
      // (a refused token) and the origin is some company's, so the page can read why (an expired token).
      const readable = ctx.state.browserOrigin === origin || (!ctx.state.endUser && !ctx.state.principal && (await anyCompanyAllows(origin)));
      if (readable) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      }
    }
  }
}

/** ALLOWED_HEADERS and the header names a preflight asks for (valid names only, at most 50). */
function requestedHeaders(asked: string): string {
  const names = asked
    .split(',')
    .map((name) => name.trim())
    .filter((name) => /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(name))
    .slice(0, 50);
  return [ALLOWED_HEADERS, ...names].join(', ');
}

/**
 * For an answer written before this middleware's own turn comes (the proxy
 * streams its answer itself): a page on the token company's allowed origin
 * may read it, `exposed` (the app's header names) included.
 */
export function exposeToBrowser(ctx: AppContext, exposed: readonly string[]): void {
  const origin = ctx.req.headers.origin;
  if (!origin || ctx.state.browserOrigin !== origin) return;
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.set('Access-Control-Expose-Headers', [EXPOSED_HEADERS, ...exposed].join(', '));
}

/**
 * Called once an end-user token is admitted: a request a browser sent from
 * another site (its Origin header, which the page cannot forge) must come
 * from one of the token's company's allowed origins, or it is refused before
 * it does anything. The gateway's own pages (same origin) need no setting.
 */
export async function admitBrowserOrigin(services: Services, ctx: AppContext, companyId: string): Promise<void> {
  const origin = ctx.get('Origin');
  if (!origin || origin === `${ctx.protocol}://${ctx.host}` || origin === originOf(services.config.publicBaseUrl) || origin === originOf(services.config.embeddedBaseUrl)) return;
  const { allowedOrigins } = await embeddingSettings(services.store, companyId);
  if (!allowedOrigins.includes(origin)) {
    throw GatewayError.of('FORBIDDEN', `origin ${origin} is not one of your company's allowed origins: add it to allowedOrigins with PUT /v2/embedding`);
  }
  ctx.state.browserOrigin = origin;
}
