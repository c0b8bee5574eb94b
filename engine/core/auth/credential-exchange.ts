import { fillTemplate, headerText } from '../arguments/index.ts';
import { fillUrlTemplate } from '../arguments/url-template.ts';
import { signedExchangeHeaders } from './exchange-signature.ts';
import type { AuthEntry } from '../definitions/index.ts';
import type { CredentialExchangeAuth } from '../definitions/generated/definition-types.ts';
import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { evaluateGuarded } from '../mapping/index.ts';
import type { RunServices } from '../run/run-services.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { EXPIRY_SKEW_MS } from './token-renewal.ts';

export interface ExchangeContext {
  connection: ConnectionRecord;
  auth: AuthEntry;
  installationId: string | null;
  endUserId: string | null;
  /** The run's host variables, for the definition's {{placeholders}}. */
  variables: Record<string, string>;
}

const cache = new Map<string, { token: string; until: number }>();

function cacheKeyOf(connection: ConnectionRecord, context: { installationId: string | null; endUserId: string | null }): string {
  return `${connection.id}:${context.installationId ?? '-'}:${context.endUserId ?? '-'}`;
}

/** After the app refused an exchanged token: the next run exchanges again. */
export function forgetExchangedToken(connection: ConnectionRecord, context: { installationId: string | null; endUserId: string | null }): void {
  cache.delete(cacheKeyOf(connection, context));
}

/**
 * Credentials that live with the customer: the gateway POSTs
 * `{ integrationId, installationId, endUserId }` (plus the definition's own
 * body) to the customer's endpoint, signed with X-Timestamp, X-Nonce and
 * X-Signature (HMAC-SHA256 over timestamp, nonce, method, path and query, and
 * the SHA-256 of the body, with the shared secret of the app configuration:
 * exchange-signature.ts), and maps the answer to an access token with the
 * auth's `response` expression. A token with an expiry is reused until
 * shortly before it.
 */
export async function exchangeCredentials(services: RunServices, context: ExchangeContext): Promise<string> {
  const { connection, auth } = context;
  const cacheKey = cacheKeyOf(connection, context);
  const cached = cache.get(cacheKey);
  if (cached && cached.until > services.clock.now()) return cached.token;

  const definition = auth.definition as CredentialExchangeAuth;
  const configuration = await services.appConfigurations.require(connection.companyId, connection.appSlug);
  const { exchangeSecret } = configuration;
  if (!exchangeSecret) {
    throw GatewayError.of('APP_NOT_CONFIGURED', `app "${connection.appSlug}" has no exchangeSecret for your company: PUT /v2/apps/${connection.appSlug}/configuration`);
  }
  const problems: FieldProblem[] = [];
  const fill = (text: string, where: string) => fillTemplate(text, context.variables, where, problems, headerText);
  // Each placeholder encoded for its part of the URL: a variable can fill a host label, a path segment or a query
  // value, never move the request to another host, port or path.
  const url = configuration.exchangeUrl ?? fillUrlTemplate(definition.url, context.variables, `auth ${auth.id} url`, problems, { originVariables: definition.originVariables ?? [] });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(definition.headers ?? {})) headers[name.toLowerCase()] = fill(String(value), `auth ${auth.id} header ${name}`);
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(definition.body ?? {})) extra[key] = typeof value === 'string' ? fill(value, `auth ${auth.id} body.${key}`) : value;
  if (problems.length) throw validationError(problems);

  const method = definition.method ?? 'POST';
  const target = new URL(url);
  const payload = { ...extra, integrationId: connection.appId, installationId: context.installationId, endUserId: context.endUserId };
  // The client sends a JSON body as JSON.stringify of it: these are the bytes signed.
  const signature = signedExchangeHeaders(exchangeSecret, { method, target: target.pathname + target.search, body: JSON.stringify(payload) });
  const response = await services.http.send({
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json', ...signature },
    body: payload as never,
    // Signed headers and body: never re-sent to another origin.
    redirect: { crossOrigin: 'refuse', endpoint: 'the credential exchange at', code: 'CREDENTIAL_EXCHANGE_FAILED' },
  });
  if (response.status < 200 || response.status >= 300) {
    throw GatewayError.of('CREDENTIAL_EXCHANGE_FAILED', `the credential exchange at ${target.host} answered HTTP ${response.status}`);
  }
  const mapped = auth.exchangeResponse
    ? await evaluateGuarded(auth.exchangeResponse as never, { status: response.status, headers: response.headers, body: response.body })
    : response.body;
  const token = (mapped as { accessToken?: unknown } | null)?.accessToken;
  if (typeof token !== 'string' || token === '') {
    throw GatewayError.of('CREDENTIAL_EXCHANGE_FAILED', `the credential exchange at ${target.host} answered no accessToken`);
  }
  const expiresIn = Number((mapped as { expiresIn?: unknown }).expiresIn);
  if (Number.isFinite(expiresIn) && expiresIn > 0) cache.set(cacheKey, { token, until: services.clock.now() + expiresIn * 1000 - EXPIRY_SKEW_MS });
  return token;
}

