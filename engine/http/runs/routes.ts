import type { ServerResponse } from 'node:http';
import { isStackOverflow, tooDeepAnswer } from '../../core/run/deep-answer.ts';
import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import { resolveAction, resolveAppVersion } from '../../core/definitions/index.ts';
import { versionFrom } from '../../core/describe/version-query.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { findInstallation } from '../../tenancy/installations/installations.ts';
import { runInstallationActionBody, runPathParameters } from '../installations/run-schemas.ts';
import type { AppContext, AppState } from '../server/context.ts';
import type { Exchange } from '../server/exchange.ts';
import { requireBody } from '../server/require-body.ts';
import { servedDirectly } from '../server/direct-routes.ts';
import type { Services } from '../services.ts';
import { requireEndUserToken } from '../guards/require-end-user-token.ts';
import { compileValidator, httpAjv, toFieldProblems } from '../../platform/validation/ajv.ts';
import { validationError } from '../../platform/errors/index.ts';
import { JSON_TYPE } from '../server/middleware/errors.ts';
import { CallStop, stopReason } from '../../platform/outbound/index.ts';
import { envelopeParts } from '../../core/run/envelope-json.ts';
import { runAction, type RunOutcome, type RunRequest } from '../../core/run/run-action.ts';
import { observeRun } from '../observability/observe-run.ts';
import { universalRunBody } from './schemas.ts';
import { selectConnection, throughInstallation, type Selected } from '../../core/run/select-connection.ts';
import type { ActionEntry, AppVersion } from '../../core/definitions/index.ts';
import type { RunFacts } from '../../core/run/run-facts.ts';
import { cutAtShutdown } from '../server/shutdown-cut.ts';


/** A run without a query string (most): Koa's ctx.query would parse the empty string into a new object each time. */
const NO_QUERY = Object.freeze({});

/** The universal run's body, checked against the schema the document shows (exported for the bench's off-Koa lane). */
export const validateUniversal = compileValidator<{ connectionId?: string; installationId?: string; arguments?: Record<string, unknown> }>(universalRunBody, 'body');
const validateInstallationRun = compileValidator<{ installationId: string; actionArguments?: Record<string, unknown> }>(runInstallationActionBody, 'body');
const runPathSchema = httpAjv.compile({ type: 'object', required: Object.keys(runPathParameters), properties: runPathParameters });

/**
 * The v1 run's path parameters, checked with the schemas the document shows:
 * `latest` is not a version (400, as the document says), a numbered version
 * the app lacks is 404.
 */
function validateRunPath(params: Record<string, string | undefined>): void {
  if (runPathSchema(params)) return;
  throw validationError(
    toFieldProblems(runPathSchema.errors ?? [], 'path').map((p) =>
      p.field === 'appVersion' && p.rule === 'pattern' ? { ...p, message: 'must be published, draft or a version number' } : p,
    ),
  );
}

/**
 * The two run endpoints. Both answer the envelope for every outcome of the
 * app call (200; 429 when rate-limit retries ran out; 502 when the response
 * mapping failed); failures before or around the call use the error
 * response (400, 401, 403, 404, 409, 502, 504).
 */
export function runRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();

  router.post(UNIVERSAL_RUN, requireApiKey(services.store), async (ctx) => {
    const versionName = versionFrom(ctx.querystring === '' ? NO_QUERY : ctx.query).version;
    answer(ctx, await runUniversal(services, ctx, { app: ctx.params.appSlug!, action: ctx.params.actionSlug! }, ctx.state.body, versionName));
  });

  router.post('/v1/installation/apps/:appId/:appVersion/action/:actionId/run', requireEndUserToken(services), async (ctx) => {
    validateRunPath(ctx.params);
    const body = validateInstallationRun(requireBody(ctx));
    const { companyId, endUserId } = ctx.state.endUser!;
    const version = resolveAppVersion(services.definitions.current(), { id: ctx.params.appId! }, ctx.params.appVersion!);
    const action = resolveAction(version, { id: ctx.params.actionId! });
    const installation = await findInstallation(services, companyId, body.installationId);
    // Another end user's installation is as unknown as a missing one.
    if (installation.endUserId !== endUserId) throw GatewayError.of('NOT_FOUND', `installation ${body.installationId} does not exist`);
    const selected = await throughInstallation(services, installation, version);
    if (version.version === 'draft' && !selected.endUser?.isTestUser) {
      throw GatewayError.of('FORBIDDEN', 'draft versions run only for test end users (isTestUser: true); use published or a version number');
    }
    answer(ctx, await observeRun(ctx, { companyId, version, action, connection: selected.connection }, (facts) => runAction(services.run, runRequest(companyId, version, action, selected, body.actionArguments ?? {}, ctx, facts))));
  });

  return servedDirectly(router);
}

/** The universal run's route; the run lane (run-lane.ts) serves the same route off Koa. */
export const UNIVERSAL_RUN = '/v2/universal/apps/:appSlug/actions/:actionSlug/run';

/**
 * The universal run, once its caller is admitted (exchange.state.principal): its body checked, the app's
 * version and action resolved, a connection chosen, the run observed for the request line and the metrics.
 * For the Koa route and the run lane alike.
 */
export async function runUniversal(services: Services, exchange: Exchange, slugs: { app: string; action: string }, given: unknown, versionName: string): Promise<RunOutcome> {
  const body = validateUniversal(given ?? {});
  const companyId = exchange.state.principal!.companyId;
  const version = resolveAppVersion(services.definitions.current(), { slug: slugs.app }, versionName);
  const action = resolveAction(version, { slug: slugs.action });
  const selected = await selectConnection(services, companyId, version, body);
  return await observeRun(exchange, { companyId, version, action, connection: selected.connection }, (facts) =>
    runAction(services.run, runRequest(companyId, version, action, selected, body.arguments ?? {}, exchange, facts)),
  );
}

/**
 * What a run endpoint asks runAction for, as one object literal of a fixed shape: built with spreads
 * (`{ ...start, arguments, signal, facts }`), each property added after the spread missed V8's inline
 * cache and went through the runtime on every run (~5-10 µs a request in a CPU profile under load).
 */
export function runRequest(companyId: string, version: AppVersion, action: ActionEntry, selected: Selected, args: unknown, ctx: Exchange, facts: RunFacts): RunRequest {
  return {
    companyId,
    version,
    action,
    connection: selected.connection,
    installation: selected.installation,
    endUser: selected.endUser,
    arguments: args,
    signal: abortOnClose(ctx),
    facts,
  };
}

/**
 * The envelope, written here straight to bytes (as Koa would serialise it,
 * but with the app's JSON bytes spliced into meta.response.body), and sent
 * at once, off Koa's respond path: one writeHead with the two headers it
 * needs and one end() of the one buffer, instead of Koa's body setter (its
 * type and length bookkeeping) and respond(). A browser's request (an Origin
 * header: the end-user routes) is left to Koa, because the CORS middleware
 * adds its headers after the handler. ctx.status still says what was
 * answered, for the request log, the metrics and the trace.
 */
export function answer(ctx: AppContext, outcome: RunOutcome): void {
  const parts = envelopeOf(ctx, outcome);
  ctx.status = outcome.status;
  const retryAfter = retryAfterOf(outcome);
  if (ctx.req.headers.origin !== undefined) {
    ctx.set('Content-Type', JSON_TYPE);
    if (retryAfter !== undefined) ctx.set('Retry-After', retryAfter);
    ctx.body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    return;
  }
  ctx.respond = false;
  // A caller that went away gets nothing written (as Koa's respond() checks).
  if (!ctx.writable) return;
  sendEnvelopeParts(ctx.res, outcome.status, parts, retryAfter);
}

/** The run's envelope as bytes; an app's answer nested too deep to write out is thrown as the 502 that says so (the run's outcome app_error). */
export function envelopeOf(exchange: Exchange, outcome: RunOutcome): Buffer[] {
  try {
    return envelopeParts(outcome.envelope);
  } catch (error) {
    // An app's answer nested thousands deep, kept as the envelope's data (an action without a response mapping).
    const tooDeep = isStackOverflow(error) ? tooDeepAnswer({ body: outcome.envelope }) : null;
    if (!tooDeep) throw error;
    if (exchange.state.run) exchange.state.run.outcome = 'app_error';
    throw tooDeep;
  }
}

/** The Retry-After header a run's answer carries (rate-limit retries ran out), or undefined. */
export function retryAfterOf(outcome: RunOutcome): string | undefined {
  return outcome.retryAfterSeconds === undefined ? undefined : String(outcome.retryAfterSeconds);
}

/** The envelope's bytes as the answer: one writeHead with its type and length, then its parts; a large envelope's parts (rows and the app's body as they came) are written one after another, not copied into one. */
export function sendEnvelopeParts(res: ServerResponse, status: number, parts: Buffer[], retryAfter?: string): void {
  let length = 0;
  for (const part of parts) length += part.length;
  res.writeHead(status, retryAfter === undefined ? { 'Content-Type': JSON_TYPE, 'Content-Length': length } : { 'Content-Type': JSON_TYPE, 'Content-Length': length, 'Retry-After': retryAfter });
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts[parts.length - 1]);
}


/** A caller who hangs up stops the run: no retry waits or app calls for nobody. */
export function abortOnClose(ctx: Pick<Exchange, 'res' | 'socket'>): CallStop {
  const stop = new CallStop();
  ctx.res.once('close', () => {
    if (!ctx.res.writableEnded) stop.abort(stopReason(cutAtShutdown(ctx.socket) ? 'the gateway shut down (SHUTDOWN_GRACE_MS ran out)' : 'the caller went away'));
  });
  return stop;
}
