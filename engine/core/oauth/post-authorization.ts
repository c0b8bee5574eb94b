import type { AuthEntry } from '../definitions/index.ts';
import type { OAuth2AuthorizationCodeAuth } from '../definitions/generated/definition-types.ts';
import { fillTemplate as fillHeader, headerText } from '../arguments/host-variables.ts';
import { evaluateGuarded, MappingError } from '../mapping/index.ts';
import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { HttpClient } from '../../platform/outbound/index.ts';
import { providerText } from '../../platform/secrets/provider-text.ts';
import { authUrl, type AppAuthUrls } from './auth-url-overrides.ts';
import { fillTemplate } from './templates.ts';

/** One account a grant reaches (a Xero organisation, an Atlassian site): what the connection keeps if it is chosen, and its name. */
export interface AccountOption {
  label: string;
  metadata: Record<string, string>;
}

/** The most options kept from one answer: a choice among more is not one a person makes on a page. */
export const MAX_OPTIONS = 100;
/** The longest value kept from the callback's query (a realm id, a site id). */
const MAX_CALLBACK_VALUE = 1000;
/** The longest label or metadata value kept from an option. */
const MAX_OPTION_VALUE = 1000;
/** The callback's own parameters: never connection metadata (the code is a secret, the state is spent). */
const NEVER_KEPT = new Set(['code', 'state', 'error', 'error_description', 'error_uri']);

/**
 * The callback's query parameters the auth keeps (`callbackMetadata`,
 * metadata key → parameter name): QuickBooks sends the company's `realmId`
 * beside the code. A parameter that is missing, not one text, or longer than
 * 1000 characters is left out; code and state never.
 */
export function callbackValues(definition: OAuth2AuthorizationCodeAuth, query: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, parameter] of Object.entries(definition.callbackMetadata ?? {})) {
    if (parameter === undefined || NEVER_KEPT.has(parameter) || !Object.hasOwn(query, parameter)) continue;
    const value = query[parameter];
    if (typeof value === 'string' && value !== '' && value.length <= MAX_CALLBACK_VALUE) Object.defineProperty(kept, key, { value, enumerable: true });
  }
  return kept;
}

/** The metadata keys an auth obtains when it is authorized (callback, token response, post-authorization): not asked of anyone before. */
export function authorizationMetadataKeys(auth: AuthEntry): string[] {
  if (auth.type !== 'OAuth2AuthorizationCode') return [];
  const definition = auth.definition as OAuth2AuthorizationCodeAuth;
  return [...new Set([...Object.keys(definition.callbackMetadata ?? {}), ...Object.keys(definition.tokenMetadata ?? {}), ...Object.keys(definition.postAuthorization?.metadata ?? {})])];
}

/**
 * The post-authorization request of an auth (Xero's GET /connections), made
 * with the new access token, and the accounts its answer names: the `options`
 * expression over `{status, headers, body}` (the body when there is none), an
 * array or one object, each turned into the metadata the connection keeps and
 * the label an end user chooses it by. Through the outbound client (egress
 * policy, limits); a redirect to another origin is refused (the request
 * carries the token). A refusal, an answer that is not 2xx, or a mapping that
 * fails is POST_AUTHORIZATION_FAILED, naming the request, never the token.
 */
export async function postAuthorizationOptions(
  http: HttpClient,
  auth: AuthEntry,
  context: { appSlug: string; appAuthUrls: AppAuthUrls | undefined; metadata: Record<string, unknown>; accessToken: string },
): Promise<AccountOption[]> {
  const definition = auth.definition as OAuth2AuthorizationCodeAuth;
  const post = definition.postAuthorization!;
  const compiled = auth.postAuthorization!;
  const url = fillTemplate(authUrl(context.appAuthUrls, context.appSlug, 'postAuthorizationUrl', post.url), context.metadata, `auth ${auth.id} postAuthorization.url`);
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(context.metadata)) if (value !== undefined && value !== null) variables[key] = String(value);
  const problems: FieldProblem[] = [];
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(post.headers ?? {})) headers[name.toLowerCase()] = fillHeader(String(value), variables, `auth ${auth.id} postAuthorization header ${name}`, problems, headerText);
  if (problems.length) throw validationError(problems);
  headers[(definition.header ?? 'Authorization').toLowerCase()] = `${definition.prefix ?? 'Bearer '}${context.accessToken}`;

  const method = post.method ?? 'GET';
  const where = `${method} ${new URL(url).origin}${new URL(url).pathname}`;
  const response = await http.send({
    method,
    url,
    headers,
    redirect: { crossOrigin: 'refuse', endpoint: 'the post-authorization request to', code: 'POST_AUTHORIZATION_FAILED' },
  });
  if (response.status < 200 || response.status >= 300) {
    const said = typeof response.body === 'string' ? '' : describe(response.body, [context.accessToken]);
    throw GatewayError.of('POST_AUTHORIZATION_FAILED', `the post-authorization request ${where} answered HTTP ${response.status}${said}`);
  }
  const input = { status: response.status, headers: response.headers, body: response.body };
  const found = await evaluated(compiled.options, input, response.body, where, 'options');
  const candidates = (found === undefined || found === null ? [] : Array.isArray(found) ? found : [found]).filter((item) => item !== null && typeof item === 'object').slice(0, MAX_OPTIONS);
  const options: AccountOption[] = [];
  for (const candidate of candidates) {
    const metadata: Record<string, string> = {};
    for (const [key, expression] of Object.entries(compiled.metadata)) {
      const value = await evaluated(expression, candidate, undefined, where, `metadata.${key}`);
      if ((typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && String(value).length <= MAX_OPTION_VALUE) {
        Object.defineProperty(metadata, key, { value: String(value), enumerable: true });
      }
    }
    if (Object.keys(metadata).length === 0) continue;
    const label = compiled.label ? await evaluated(compiled.label, candidate, undefined, where, 'label') : undefined;
    const text = typeof label === 'string' || typeof label === 'number' ? String(label) : Object.values(metadata)[0]!;
    options.push({ label: text.slice(0, MAX_OPTION_VALUE), metadata });
  }
  if (options.length === 0) throw GatewayError.of('POST_AUTHORIZATION_FAILED', `the post-authorization request ${where} named no account to connect (its options gave none with the metadata the auth keeps)`);
  return options;
}

async function evaluated(expression: Parameters<typeof evaluateGuarded>[0] | undefined, input: unknown, fallback: unknown, where: string, what: string): Promise<unknown> {
  if (!expression) return fallback;
  try {
    return await evaluateGuarded(expression, input);
  } catch (error) {
    if (error instanceof MappingError) throw GatewayError.of('POST_AUTHORIZATION_FAILED', `the post-authorization ${what} of ${where} failed: ${error.message}`);
    throw error;
  }
}

/** The provider's `error`/`message` words, secrets redacted, for the failure message. */
function describe(body: unknown, secrets: string[]): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return '';
  const record = body as Record<string, unknown>;
  const words = [record.error, record.Title, record.title, record.message, record.Detail, record.detail].find((v) => typeof v === 'string');
  return typeof words === 'string' ? `: ${providerText(words, secrets)}` : '';
}
