import Router from '@koa/router';
import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { proxyCall, PROXY_ACTION, type ProxyRetry } from '../../core/proxy/proxy-call.ts';
import { proxyVersion } from '../../core/proxy/proxy-version.ts';
import { errorOutcome, type RunFacts, type RunOutcomeKind } from '../../core/run/run-facts.ts';
import { connectionEndUser } from '../../core/run/select-connection.ts';
import { GatewayError, validationError } from '../../platform/errors/index.ts';
import type { ConnectionRecord, EndUserRecord } from '../../platform/store/index.ts';
import { findConnection } from '../../tenancy/connections/connections.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';
import { exposeToBrowser } from '../embedding/cors.ts';
import { requireEnabledApp } from '../end-user-connections/apps.ts';
import { requireApiKey } from '../guards/require-api-key.ts';
import { requireEndUserToken } from '../guards/require-end-user-token.ts';
import { abortOnClose } from '../runs/routes.ts';
import type { AppContext, AppState } from '../server/context.ts';
import type { Services } from '../services.ts';

/**
 * Where proxied requests come in: their bodies are the app's, never read as JSON by the gateway (json-body.ts skips them).
 * In any letter case, as the router matches paths (/V2/Proxy/… is a proxied request too).
 */
export const PROXY_PATHS = /^\/v2\/(?:end-user\/)?proxy\//i;

/** The methods the proxy sends (a GET route answers HEAD too). */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRY_CHOICES: readonly ProxyRetry[] = ['idempotent', 'always', 'never'];

/**
 * /v2/proxy/{connectionId}/{path} (API key) and
 * /v2/end-user/proxy/{connectionId}/{path} (end-user token, the end user's
 * own connections, where the company allows it): a caller's own request to
 * any endpoint of a connected app, sent by core/proxy/proxy-call.ts, the
 * app's answer streamed back as it came.
 */
export function proxyRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(services.store);
  const endUserToken = requireEndUserToken(services);

  const viaApiKey = async (ctx: AppContext) => {
    const connection = await findConnection(services, ctx.state.principal!.companyId, ctx.params.connectionId!);
    await proxied(services, ctx, connection, await connectionEndUser(services, connection), 4);
  };
  const viaEndUserToken = async (ctx: AppContext) => {
    const { companyId, endUserId, isTestUser } = ctx.state.endUser!;
    if (!(await embeddingSettings(services.store, companyId)).endUserProxy) {
      throw GatewayError.of('FORBIDDEN', 'the proxy is not open to end users: the company turns it on with PUT /v2/embedding (endUserProxy: true)');
    }
    const connection = await findConnection(services, companyId, ctx.params.connectionId!);
    // Another end user's connection, or the company's own, is as unknown as a missing one.
    if (connection.endUserId !== endUserId) throw GatewayError.of('NOT_FOUND', `connection ${ctx.params.connectionId} does not exist`);
    await requireEnabledApp(services, companyId, connection.appSlug);
    if (!isTestUser && proxyVersion(services.definitions.current(), connection).version === 'draft') {
      throw GatewayError.of('FORBIDDEN', `app "${connection.appSlug}" has only a draft, which end users reach only as test end users (isTestUser: true)`);
    }
    await proxied(services, ctx, connection, await connectionEndUser(services, connection), 5);
  };

  for (const method of METHODS) {
    // With no path (…/{connectionId}, or …/{connectionId}/): the base URL itself.
    router[method]('/v2/proxy/:connectionId', apiKey, viaApiKey);
    router[method]('/v2/proxy/:connectionId/*path', apiKey, viaApiKey);
    router[method]('/v2/end-user/proxy/:connectionId', endUserToken, viaEndUserToken);
    router[method]('/v2/end-user/proxy/:connectionId/*path', endUserToken, viaEndUserToken);
  }
  return router;
}

/**
 * Sends the request on and streams the answer back. The answer is written
 * here (ctx.respond = false), not by Koa: a body the app cuts short, or a
 * limit passed mid-way, must end the caller's response as broken (the
 * connection closed), never leave it hanging or look complete.
 */
async function proxied(services: Services, ctx: AppContext, connection: ConnectionRecord, endUser: EndUserRecord | null, depth: number): Promise<void> {
  const version = proxyVersion(services.definitions.current(), connection);
  const facts: RunFacts = { companyId: connection.companyId, app: version.app.slug, action: PROXY_ACTION, version: String(version.version), connectionId: connection.id, retries: 0 };
  ctx.state.run = facts;
  try {
    const answer = await proxyCall(services.run, services.config.proxy, {
      companyId: connection.companyId,
      version,
      connection,
      endUser,
      method: ctx.method,
      // The path as sent (ctx.path is not decoded): its escapes are the caller's, for the app.
      path: ctx.path.split('/').slice(depth).join('/'),
      query: ctx.querystring,
      headers: ctx.req.headers,
      body: WITH_BODY.has(ctx.method) && hasBody(ctx.req) ? { stream: ctx.req, length: declaredLength(ctx.req) } : null,
      retry: retryChoice(ctx.get('X-Proxy-Retry')),
      signal: abortOnClose(ctx),
      facts,
    });
    // The status and headers wait for the body's first bytes (decoded and redacted), for FIRST_BYTES_WAIT_MS at most: a
    // body that fails at once (not the gzip it says, cut short) is answered in the error shape (502), not with an empty
    // reply, and an app that sends its headers and then holds its body (a long poll, a stream of events yet to come)
    // has its headers passed on meanwhile.
    await firstBytes(answer.body, FIRST_BYTES_WAIT_MS);
    facts.outcome = answer.status === 429 ? 'rate_limited' : answer.status >= 400 ? 'app_error' : 'success';
    ctx.status = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) {
      // A value Node will not write (a character no HTTP header may hold) is left out, not a failure of the answer.
      try {
        ctx.res.setHeader(name, value);
      } catch {
        delete answer.headers[name];
      }
    }
    if (!ctx.req.complete) ctx.res.setHeader('Connection', 'close');
    // The answer is one caller's (their connection, their credentials): a shared cache that honours the app's
    // Cache-Control: public keys it on the caller's Authorization, never handing it to another caller of the same URL.
    ctx.vary('Authorization');
    exposeToBrowser(ctx, Object.keys(answer.headers));
    ctx.respond = false;
    // No bytes yet (waited out above): the status and headers go now, not with the first write.
    if (answer.body.readableLength === 0 && !answer.body.readableEnded) ctx.res.flushHeaders();
    await new Promise<void>((resolve) => {
      pipeline(answer.body, ctx.res, (error) => {
        if (error) {
          facts.outcome = streamOutcome(error, ctx);
          ctx.res.destroy();
          services.logger.warn({ reqId: ctx.state.requestId, app: facts.app, connectionId: connection.id, code: (error as GatewayError).code }, 'a proxied answer was cut short');
        }
        resolve();
      });
    });
  } catch (error) {
    facts.outcome = errorOutcome(error, ctx.res.destroyed || ctx.socket.destroyed);
    throw error;
  }
}

/** How long the status and headers wait for the body's first bytes (proxied above). */
const FIRST_BYTES_WAIT_MS = 500;

/**
 * Resolves once the body has its first bytes ready (they stay in it, to be read by the pipe), has ended, or
 * `waitMs` passed; rejects with the body's error when it fails first.
 */
function firstBytes(body: Readable, waitMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle(), waitMs);
    const settle = (error?: unknown) => {
      clearTimeout(timer);
      body.off('readable', onReadable);
      body.off('end', onEnd);
      body.off('error', settle);
      if (error) reject(error);
      else resolve();
    };
    const onReadable = () => {
      if (body.readableLength > 0) settle();
      // Readable with nothing buffered: the end (a HEAD, a 204), which 'end' announces once read.
      else body.read(0);
    };
    const onEnd = () => settle();
    if (body.readableLength > 0 || body.readableEnded) return settle();
    if (body.errored) return settle(body.errored);
    body.on('readable', onReadable);
    body.once('end', onEnd);
    body.once('error', settle);
  });
}

/** How a proxied answer cut short mid-body ended, for the request log and the metrics. */
function streamOutcome(error: unknown, ctx: AppContext): RunOutcomeKind {
  return errorOutcome(error, !(error instanceof GatewayError) && (ctx.res.destroyed || ctx.socket.destroyed));
}

/** X-Proxy-Retry: which rate-limited answers are sent again (idempotent methods by default). */
function retryChoice(value: string): ProxyRetry {
  if (value === '') return 'idempotent';
  const choice = value.trim().toLowerCase();
  if ((RETRY_CHOICES as readonly string[]).includes(choice)) return choice as ProxyRetry;
  throw validationError([{ field: 'headers.x-proxy-retry', rule: 'enum', message: `must be one of ${RETRY_CHOICES.join(', ')}` }]);
}

/** A Transfer-Encoding or a numeric Content-Length: there is a body to send on. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && /^\d+$/.test(length) && length !== '0');
}

function declaredLength(req: IncomingMessage): number | null {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
}
