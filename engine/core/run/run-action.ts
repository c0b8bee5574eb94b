import { buildOutboundRequest, lookupOptionsVia, type BuiltRequest, type LookupOptions, type LookupRun, type MapperInput } from '../arguments/index.ts';
import { isStackOverflow, tooDeepAnswer } from './deep-answer.ts';
import type { ActionEntry, AppVersion, CompiledExpression } from '../definitions/index.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { evaluateGuarded, MappingError } from '../mapping/index.ts';
import type { RunServices } from './run-services.ts';
import type { ConnectionRecord, EndUserRecord, InstallationRecord } from '../../platform/store/index.ts';
import { copyBody, type Abortable } from '../../platform/outbound/index.ts';
import { appErrorOf } from './app-error.ts';
import { deletedId } from './deleted-id.ts';
import { apiOf } from './base-url-override.ts';
import { enforceEnvelope, type ActionMeta, type Envelope } from './envelope.ts';
import { appliedCredentials, redactEnvelope, secretFormsOfRun } from './redact-envelope.ts';
import { flagOf, statusFlags } from './envelope-flags.ts';
import { mapResponse, responseFacts, type MappingInput } from './map-response.ts';
import { formArraysOf, formBody } from '../arguments/form-body.ts';
import { applyCursor, setNextCursor, type PageFacts } from '../pagination/index.ts';
import type { Sleep } from './rate-limit.ts';
import { rateLimitVerdict } from './rate-limit-signal.ts';
import { RateLimitRetries } from './rate-limit-retries.ts';
import { ConnectionCredentials } from './connection-credentials.ts';
import { observeAppCall } from './app-call.ts';
import type { RunFacts } from './run-facts.ts';
import { appCall } from '../../platform/tracing/index.ts';
import { planOf } from '../plan/index.ts';
import { appCallKey } from '../concurrency/index.ts';
import { ownTurn } from '../../platform/turns/index.ts';
import { isLargeEnvelope, isLargeResponse } from './envelope-json.ts';
import { rowCount } from './raw-rows.ts';
import { isJsonObject } from '../../platform/json-object.ts';

export interface RunRequest {
  companyId: string;
  version: AppVersion;
  action: ActionEntry;
  connection: ConnectionRecord;
  installation: InstallationRecord | null;
  endUser: EndUserRecord | null;
  arguments: unknown;
  /** Lookups run actions too; this stops a lookup whose lookup has a lookup. */
  depth?: number;
  signal?: Abortable;
  /** How rate-limit waits are taken; the offline case runner passes one that does not wait. */
  sleep?: Sleep;
  /** Where the run records its app calls' status and time for the request log (the run endpoints pass ctx.state.run). */
  facts?: RunFacts;
  /**
   * How the outbound request is built: by the action's run plan (the default),
   * or by the reference interpretation of the definition (buildOutboundRequest),
   * which the differential test holds the plan to.
   */
  interpretation?: 'plan' | 'reference';
}

/** The envelope, and the HTTP status the run endpoints answer it with. */
export interface RunOutcome {
  status: number;
  envelope: Envelope;
  /** On a 429: the wait the app asked for (Retry-After, or the API's reset header), whole seconds rounded up; the run endpoints answer it as Retry-After. */
  retryAfterSeconds?: number;
}

const MAX_LOOKUP_DEPTH = 2;

/**
 * One run of an action through a connection: arguments built into the
 * request, auth applied, the call sent, the response mapped, the envelope
 * rules enforced. A rate limit (the mapping's meta.tooManyRequests, else
 * the API's retry.when, default a 429) is retried by the API's policy,
 * within its budget of waiting for the whole run; an expired OAuth 2.0 token
 * (meta.authenticated false, or a 401) is renewed once and the call sent
 * once more. Each call takes one of the connection's slots when the API
 * bounds its calls at once (api.yaml concurrency), waiting for one until
 * REQUEST_TIMEOUT_MS after the run started (503 UPSTREAM_BUSY after that,
 * or at once when the queue is full). Every secret of the run found in the
 * app's response is redacted from the envelope before it is returned
 * (redact-envelope.ts): every run endpoint, and every lookup, gets its
 * envelope from here.
 */
export async function runAction(services: RunServices, run: RunRequest): Promise<RunOutcome> {
  const used: UsedSecrets = { held: [], sent: [], arguments: undefined, answer: undefined };
  // The company's OAuth client secret, read beside the call (an authorization-code connection renews with it).
  const company =
    run.connection.authType === 'OAuth2AuthorizationCode'
      ? services.appConfigurations.require(run.companyId, run.version.app.slug).then(
          (configuration) => [configuration.clientSecret],
          () => [],
        )
      : [];
  let outcome: RunOutcome;
  try {
    outcome = await runCalls(services, run, used);
    used.sent.push(...(await company));
    redactEnvelope(outcome.envelope, secretFormsOfRun(used.held, used.sent), used);
  } catch (error) {
    // Out of call stack: an answer nested thousands deep is the app's fault (deep-answer.ts); anything else stays a failure of the gateway.
    throw (isStackOverflow(error) && tooDeepAnswer(used.answer)) || error;
  }
  // Its caller writes the envelope to bytes as soon as it has it: a large one, at a turn of its own (platform/turns).
  if (isLargeEnvelope(outcome.envelope)) await ownTurn();
  return outcome;
}

/** The secrets a run held and sent, gathered as it goes (see secretFormsOfRun). */
interface UsedSecrets {
  held: object[];
  sent: (string | undefined)[];
  /** The arguments the mapping read (a hidden argument may carry a connection's value). */
  arguments: unknown;
  /** The last mapping input (the app's answer), measured only if the run runs out of call stack. */
  answer?: { body?: unknown };
}

async function runCalls(services: RunServices, run: RunRequest, used: UsedSecrets): Promise<RunOutcome> {
  const { version, action } = run;
  const credentials = ConnectionCredentials.of(services, version, run.connection);
  const { auth } = credentials;
  const connectionId = credentials.connection.id;
  const host = { connection: credentials.hostValues(), metadata: { ...run.endUser?.metadata, ...run.installation?.metadata } };
  const deps = {
    evaluateMapper: (expression: CompiledExpression, input: MapperInput) => evaluateGuarded(expression as never, input),
    lookupOptions: lookupsFor(services, run),
  };
  const plan = run.interpretation === 'reference' ? null : planOf(version, action);
  const baseUrl = services.settings.appBaseUrls[version.app.slug];
  const built = plan
    ? await plan.build({ auth, host, arguments: run.arguments, baseUrl }, deps)
    : await buildOutboundRequest({ action, api: apiOf(version, services.settings.appBaseUrls), auth, host, arguments: run.arguments }, deps);
  const scope = { appId: version.app.id, version: version.version, actionId: action.id, connectionId };
  // The call's origin (a NextUrl cursor must stay on it): the plan knows it when the base URL has no variables.
  const origin = plan?.originOf(baseUrl) ?? new URL(built.request.url).origin;
  applyCursor(services.keyring, scope, action, run.arguments, built);
  const actionMeta: ActionMeta = { id: action.id, slug: action.slug, operation: action.operation, query: built.request.query, body: built.request.body ?? null };
  // A form body is written here, in the styles the API and its arguments give arrays (a JSON one by the client).
  const body = version.api.definition.bodyEncoding === 'Form' && isJsonObject(built.request.body) ? formBody(built.request.body, formArraysOf(version, action)) : built.request.body;

  await credentials.start({ installationId: run.installation?.id ?? null, endUserId: run.endUser?.id ?? run.installation?.endUserId ?? null, variables: built.variables });
  const rateLimits = new RateLimitRetries(version.api.retry, services.settings.maxWaitMs, { metrics: services.metrics, app: version.app.slug });
  // A call waits for one of the connection's slots (api.yaml concurrency) until then at the latest.
  const callKey = services.calls && version.api.concurrency !== undefined ? appCallKey(version, connectionId) : undefined;
  const deadline = callKey ? services.clock.now() + services.settings.maxWaitMs : 0;
  // Mapping workers take large responses (an action without a response mapping has its body as data: parsed and written there too).
  const workers = services.mappingWorkers?.active ? services.mappingWorkers : undefined;
  for (;;) {
    const applied = credentials.apply(built.variables, plan?.version.fillTemplate);
    const held = credentials.secrets();
    if (!used.held.includes(held)) used.held.push(held);
    used.sent.push(credentials.token, ...appliedCredentials(applied));
    used.arguments = built.arguments;
    const retries = rateLimits.retries;
    const release = callKey ? await services.calls!.acquire(callKey, deadline, run.signal) : undefined;
    let response;
    try {
      response = await observeAppCall(services.metrics, run.facts, { app: version.app.slug, action: action.slug }, () => appCall(run, retries + Number(credentials.renewed), () => services.http.send({
        method: built.request.method,
        url: built.request.url,
        headers: { ...(built.request.body === undefined ? undefined : plan ? plan.bodyHeaders : bodyType(version)), ...built.request.headers, ...applied.headers },
        query: { ...built.request.query, ...applied.query },
        ...(body !== undefined ? { body: body as never } : {}),
        redirect: applied.redirect,
        ...(run.signal ? { signal: run.signal } : {}),
        // A large JSON body is left unparsed for a mapping worker (map-response.ts).
        ...(workers ? { deferJsonFrom: workers.settings.fromBytes } : {}),
        // The API's own limit on one call, where api.yaml sets one (else OUTBOUND_TOTAL_TIMEOUT_MS).
        ...(version.api.timeoutMs !== undefined ? { timeoutMs: version.api.timeoutMs, timeoutSetting: 'api.yaml timeoutMs' } : {}),
      })));
    } finally {
      release?.();
    }
    const facts = { status: response.status, response: responseFacts(response), action: actionMeta, retries, deletedId: deletedId(action, built) };
    // Written out, not `{ ...facts.response, action, arguments }`: properties added after a spread miss V8's inline cache on every run (~2 µs).
    // copyBody: a body left unparsed (deferred-json.ts) is parsed by whatever reads it, a mapping worker or this thread.
    const mappingInput: MappingInput = copyBody(facts.response, { status: facts.response.status, headers: facts.response.headers, body: null as unknown, action: actionMeta, arguments: built.arguments });
    used.answer = mappingInput;
    // A large response is mapped from a turn of its own, not in the turn that parsed it (platform/turns).
    if (isLargeResponse(facts.response)) await ownTurn();
    const mapped = await mapResponse(action, mappingInput, run.signal, workers);
    if (!mapped.ok) {
      services.metrics?.mappingErrors.inc({ reason: mapped.error.details.reason });
      const envelope = enforceEnvelope({ success: false }, facts);
      envelope.meta.error = { code: mapped.error.code, message: mapped.error.message, details: mapped.error.details };
      return { status: 502, envelope };
    }
    const meta = (mapped.proposal.meta ?? {}) as { tooManyRequests?: unknown; authenticated?: unknown; appError?: unknown };
    // A failure of the app call carries the app's own error (meta.appError), never a success.
    const withAppError = async (envelope: Envelope): Promise<Envelope> => {
      if (!envelope.success) envelope.meta.appError = await appErrorOf(meta.appError, version.api.appError, mappingInput, (error) => appErrorMappingFailed(services, run, error));
      return envelope;
    };

    const rateLimit = await rateLimitVerdict(version.api.retry, meta.tooManyRequests, mappingInput, (error, which) => retryExpressionFailed(services, run, error, which));
    if (rateLimit.limited) {
      const wait = rateLimits.nextWait(response.headers, rateLimit.giveUp);
      if (wait !== null) {
        await rateLimits.wait(wait, run.signal, run.sleep);
        continue;
      }
      const envelope = await withAppError(enforceEnvelope({ ...mapped.proposal, success: false }, facts));
      envelope.meta.tooManyRequests = true;
      await setNextCursor(envelope, action.pagination, services.keyring, scope, pageFacts(envelope, built, mappingInput, origin));
      const askedMs = rateLimits.askedWaitMs(response.headers);
      return askedMs === null ? { status: 429, envelope } : { status: 429, envelope, retryAfterSeconds: Math.ceil(askedMs / 1000) };
    }

    // The flag the envelope will carry: the mapping's boolean, else false on a 401.
    const reauthenticate = (flagOf(meta.authenticated) ?? statusFlags(response.status).authenticated) === false;
    if (reauthenticate && (await credentials.renewOnce())) continue;
    // An API key, a password or a bearer token the app refused stays refused: the connection needs new credentials.
    if (reauthenticate) await credentials.refused();
    const envelope = await withAppError(enforceEnvelope(mapped.proposal, facts));
    try {
      await setNextCursor(envelope, action.pagination, services.keyring, scope, pageFacts(envelope, built, mappingInput, origin));
    } catch (error) {
      if (!(error instanceof MappingError)) throw error;
      services.metrics?.mappingErrors.inc({ reason: error.details.reason });
      const failed = enforceEnvelope({ success: false }, facts);
      failed.meta.error = { code: error.code, message: error.message, details: error.details };
      return { status: 502, envelope: failed };
    }
    return { status: 200, envelope };
  }
}

/** What the next page's cursor is computed from. */
function pageFacts(envelope: Envelope, built: BuiltRequest, input: MappingInput, origin: string): PageFacts {
  return { input, request: built.request as PageFacts['request'], rows: rowCount(envelope), origin };
}

/** A form body when the API says so; JSON is the client's default (the reference's; a plan has it decided). */
function bodyType(version: AppVersion): Record<string, string> {
  return version.api.definition.bodyEncoding === 'Form' ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
}

/**
 * How a call's Lookup list arguments get their options: by running the
 * lookup's action through the same connection (a run's own arguments, or the
 * host arguments of a proxied call).
 */
export function lookupsFor(services: RunServices, run: Omit<RunRequest, 'action' | 'arguments'> & Partial<Pick<RunRequest, 'action' | 'arguments'>>): LookupOptions {
  return lookupOptionsVia((lookup) => runLookupAction(services, run, lookup), { companyId: run.companyId, connectionId: run.connection.id, version: run.version });
}

async function runLookupAction(services: RunServices, run: Omit<RunRequest, 'action' | 'arguments'>, lookup: LookupRun) {
  const depth = (run.depth ?? 0) + 1;
  if (depth > MAX_LOOKUP_DEPTH) throw GatewayError.of('LOOKUP_FAILED', `lookup action ${lookup.action.id} needs a lookup of its own more than ${MAX_LOOKUP_DEPTH} deep`);
  // The lookup's calls are not the run's own: its facts (status, time) stay the outer call's.
  const { envelope } = await runAction(services, { ...run, action: lookup.action, arguments: lookup.arguments, depth, facts: undefined });
  return envelope;
}

/** The author hears that api.yaml's retry.when or retry.giveUpWhen failed (where and why); the documented default decides instead. */
function retryExpressionFailed(services: RunServices, run: RunRequest, error: MappingError, which: 'when' | 'giveUpWhen'): void {
  authorExpressionFailed(services, run, error, which === 'when' ? 'api.yaml retry.when failed: a 429 is the rate limit instead' : 'api.yaml retry.giveUpWhen failed: the rate limit is retried');
}

/** The author hears that api.yaml's appError mapping failed (where and why, never the response it read); the run answers the engine's default. */
function appErrorMappingFailed(services: RunServices, run: RunRequest, error: MappingError): void {
  authorExpressionFailed(services, run, error, 'api.yaml appError mapping failed: the engine default (HTTP_<status>) answers instead');
}

/** One of api.yaml's expressions failed during a run: counted, and logged for the author with its place and reason (never the response it read). */
function authorExpressionFailed(services: RunServices, run: RunRequest, error: MappingError, message: string): void {
  services.metrics?.mappingErrors.inc({ reason: error.details.reason });
  const { file, line, column, reason } = error.details;
  services.logger.warn({ app: run.version.app.slug, version: String(run.version.version), action: run.action.id, code: error.code, file, line, column, reason }, message);
}
