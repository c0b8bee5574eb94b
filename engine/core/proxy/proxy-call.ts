import { pipeline, type Readable } from 'node:stream';
import type { MapperInput } from '../arguments/index.ts';
import type { AppVersion, CompiledExpression } from '../definitions/index.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { evaluateGuarded } from '../mapping/index.ts';
import { appCallKey, type Release } from '../concurrency/app-calls.ts';
import type { Abortable } from '../../platform/outbound/index.ts';
import type { StreamResponse } from '../../platform/outbound/stream.ts';
import type { ConnectionRecord, EndUserRecord } from '../../platform/store/index.ts';
import { redactingStream, redactionForms } from '../../platform/secrets/redacting-stream.ts';
import { appCall } from '../../platform/tracing/index.ts';
import { buildHostRequest } from '../plan/host-request.ts';
import { versionPlanOf } from '../plan/action-plan.ts';
import { observeAppCall } from '../run/app-call.ts';
import { ConnectionCredentials } from '../run/connection-credentials.ts';
import { rateLimitVerdict } from '../run/rate-limit-signal.ts';
import { RateLimitRetries } from '../run/rate-limit-retries.ts';
import { lookupsFor } from '../run/run-action.ts';
import type { RunFacts } from '../run/run-facts.ts';
import type { RunServices } from '../run/run-services.ts';
import { forwardedRequestHeaders, returnedResponseHeaders } from './proxy-headers.ts';
import { brokenPathRule, proxyTarget, redirectWithin, refused } from './proxy-path.ts';
import { pathAllowed, proxyRulesOf } from './proxy-rules.ts';
import { outgoingBody, type IncomingBody, type OutgoingBody } from './request-body.ts';
import { streamLimitsOf, type ProxySettings } from './settings.ts';

/** The action label of a proxied call in metrics, traces and the request log: not a slug any action can have. */
export const PROXY_ACTION = '(proxy)';

/** Methods whose repetition changes nothing on the app (RFC 9110 §9.2.2): a rate limit is retried for these unless the caller says otherwise. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Which rate-limited answers are sent again (the caller's X-Proxy-Retry): idempotent methods only (the default), any, or none. */
export type ProxyRetry = 'idempotent' | 'always' | 'never';

export interface ProxyRequest {
  companyId: string;
  version: AppVersion;
  connection: ConnectionRecord;
  endUser: EndUserRecord | null;
  method: string;
  /** What follows /v2/proxy/{connectionId}/, percent-encoded as the caller sent it. */
  path: string;
  /** The query string as the caller sent it, without its `?`. */
  query: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: IncomingBody | null;
  retry: ProxyRetry;
  signal?: Abortable;
  /** Where the call's status and time go for the request log (the proxy routes pass ctx.state.run). */
  facts?: RunFacts;
}

/** The app's answer, as the caller gets it. */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as it streams in, decoded and redacted; fails (an OutboundError) if the app or a limit cuts it short. */
  body: Readable;
}

/**
 * One caller's own request sent to a connected app, by the same rules as a
 * run and through the same code: the connection's credentials
 * (ConnectionCredentials: active, the first token, one renewal on a 401),
 * the base URL filled from the connection (buildHostRequest), the API's
 * retry policy on rate limits (RateLimitRetries; for idempotent methods
 * unless the caller says otherwise), the HTTP client's egress policy on
 * every hop and its redirect rules, metrics, traces and the request log.
 * What is the proxy's own: the path rules (proxy-path.ts) and api.yaml's
 * `proxy` (proxy-rules.ts), the headers that pass each way
 * (proxy-headers.ts), bodies streamed both ways within PROXY_* limits, and
 * the connection's secrets redacted from the answer as it streams.
 */
export async function proxyCall(services: RunServices, settings: ProxySettings, request: ProxyRequest): Promise<ProxyAnswer> {
  const { version } = request;
  const app = version.app.slug;
  const rules = proxyRulesOf(version.api.definition);
  if (!rules.enabled) {
    throw GatewayError.of('PROXY_DISABLED', `app "${app}" (version ${version.version}) does not allow the proxy (api.yaml proxy: false): use its actions`);
  }
  const broken = brokenPathRule(request.path);
  if (broken) throw refused(broken);

  const credentials = ConnectionCredentials.of(services, version, request.connection);
  const host = await buildHostRequest(
    version,
    { auth: credentials.auth, host: { connection: credentials.hostValues(), metadata: { ...request.endUser?.metadata } }, baseUrl: services.settings.appBaseUrls[app] },
    {
      evaluateMapper: (expression: CompiledExpression, input: MapperInput) => evaluateGuarded(expression as never, input),
      lookupOptions: lookupsFor(services, { companyId: request.companyId, version, connection: request.connection, installation: null, endUser: request.endUser }),
    },
  );
  const where = proxyTarget(host.baseUrl, request.path, '', new Set()).path;
  if (!pathAllowed(rules, where)) {
    throw GatewayError.of('PROXY_PATH_NOT_ALLOWED', `app "${app}" allows the proxy only on ${rules.paths!.join(', ')} (api.yaml proxy.paths), not on ${where}`);
  }

  await credentials.start({ installationId: null, endUserId: request.endUser?.id ?? null, variables: host.variables });
  const fill = versionPlanOf(version).fillTemplate;
  const authNames = credentials.apply(host.variables, fill);
  const target = proxyTarget(host.baseUrl, request.path, request.query, new Set([...Object.keys(authNames.query), ...Object.keys(host.query)]));
  const forwarded = forwardedRequestHeaders(request.headers, {
    listed: rules.headers,
    apiHeaders: version.api.headers,
    hostHeaders: host.headers,
    authHeaders: Object.keys(authNames.headers),
  });
  const body = await outgoingBody(request.body, settings);
  const method = request.method.toUpperCase();
  const resendable = body.kind !== 'stream';
  const retryRateLimits = resendable && (request.retry === 'always' || (request.retry === 'idempotent' && IDEMPOTENT.has(method)));
  const rateLimits = new RateLimitRetries(version.api.retry, services.settings.maxWaitMs, { metrics: services.metrics, app });
  const limits = streamLimitsOf(settings);
  // A redirect back into the app goes only where the caller's own path could: under the base path, within proxy.paths.
  const follows = (url: URL) => redirectWithin(host.baseUrl, url, (path) => pathAllowed(rules, path));

  // The connection's slots when the app bounds its calls at once (api.yaml concurrency), shared with its runs: one per
  // attempt, waited for until the request's deadline (REQUEST_TIMEOUT_MS), given back when the attempt's answer is done.
  const callKey = services.calls && version.api.concurrency !== undefined ? appCallKey(version, request.connection.id) : undefined;
  const deadline = callKey ? services.clock.now() + services.settings.maxWaitMs : 0;

  for (;;) {
    const applied = credentials.apply(host.variables, fill);
    const resends = rateLimits.retries + Number(credentials.renewed);
    const release: Release = callKey ? await services.calls!.acquire(callKey, deadline, request.signal) : () => undefined;
    let response: StreamResponse;
    try {
      response = await observeAppCall(services.metrics, request.facts, { app, action: PROXY_ACTION }, () =>
        appCall({ version, action: { id: PROXY_ACTION } }, resends, () =>
          services.http.stream({
            method,
            url: target.url,
            headers: { ...host.headers, ...forwarded, ...applied.headers },
            query: applied.query,
            ...bodyOf(body),
            redirect: applied.redirect,
            follows,
            ...(request.signal ? { signal: request.signal } : {}),
            limits,
          }),
        ),
      );
    } catch (error) {
      release();
      throw error;
    }

    // A 401: the token is renewed once and the call sent again, when its body can be.
    if (response.status === 401 && resendable && !credentials.renewed && renewable(credentials)) {
      response.discard();
      release();
      if (await credentials.renewOnce()) continue;
    }
    if (retryRateLimits) {
      const verdict = await rateLimitVerdict(version.api.retry, undefined, { status: response.status, headers: response.headers, body: null, action: PROXY_META, arguments: {} });
      const wait = verdict.limited ? rateLimits.nextWait(response.headers, verdict.giveUp) : null;
      if (wait !== null) {
        response.discard();
        release();
        await rateLimits.wait(wait, request.signal);
        continue;
      }
    }
    if (request.facts) request.facts.retries = rateLimits.retries;
    return answer(response, applied.secretSources, applied.headers, method, release);
  }
}

/** What mappings of a proxied call's answer (api.yaml's retry.when, giveUpWhen) see as `action`. */
const PROXY_META = Object.freeze({ id: PROXY_ACTION, slug: PROXY_ACTION, operation: 'other' as const, query: {}, body: null });

function renewable(credentials: ConnectionCredentials): boolean {
  const type = credentials.auth.type;
  return type === 'OAuth2AuthorizationCode' || type === 'OAuth2ClientCredentials' || type === 'CredentialExchange';
}

function bodyOf(body: OutgoingBody): { body?: Buffer | Readable; bodyLength?: number } {
  if (body.kind === 'held') return { body: body.bytes };
  if (body.kind === 'stream') return body.length === undefined ? { body: body.stream } : { body: body.stream, bodyLength: body.length };
  return {};
}

/**
 * The app's answer as the caller gets it: its status; its headers less the
 * ones that never pass (proxy-headers.ts), each redacted, with
 * `Proxy-Status` saying the status is the app's (RFC 9209); its body decoded
 * and every secret of the connection, and what the auth made of them,
 * redacted as it streams (also the credential of an `Authorization: Basic
 * <base64>` or `Bearer <token>`, without its scheme).
 */
function answer(response: StreamResponse, sources: readonly unknown[], authHeaders: Readonly<Record<string, string>>, method: string, release: Release): ProxyAnswer {
  const credentialParts = Object.values(authHeaders).map((value) => value.slice(value.indexOf(' ') + 1));
  const forms = redactionForms(...sources, ...credentialParts);
  const headers = returnedResponseHeaders(response.headers, { decoded: response.decoded, forms });
  // A HEAD's Content-Length is what a GET would carry: kept when the gateway would answer that GET's bytes as they are.
  if (method === 'HEAD' && response.headers['content-length'] !== undefined && !response.headers['content-encoding']) headers['content-length'] = response.headers['content-length'];
  headers['proxy-status'] = `integration-gateway; received-status=${response.status}`;
  const body = forms.length === 0 ? response.body : (pipeline(response.body, redactingStream(forms), () => undefined) as unknown as Readable);
  // The slot is the app's until its answer is read to the end, fails or is dropped by the caller.
  response.body.once('close', release);
  body.once('close', release);
  return { status: response.status, headers, body };
}
