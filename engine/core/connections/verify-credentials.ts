import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import type { AppVersion, AuthEntry } from '../definitions/index.ts';
import type { Verification } from '../definitions/generated/definition-types.ts';
import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { fillUrlTemplate } from '../arguments/url-template.ts';
import { fillTemplate, headerText } from '../arguments/host-variables.ts';
import { joinUrl } from '../arguments/placement.ts';
import { asText } from '../arguments/send-values.ts';
import { applyAuth } from '../auth/apply-auth.ts';
import { evaluateGuarded, MappingError } from '../mapping/index.ts';
import { apiOf } from '../run/base-url-override.ts';
import type { RunServices } from '../run/run-services.ts';
import { providerText } from '../../platform/secrets/provider-text.ts';
import { authArgumentValues } from './kind-fields.ts';

/** A {{name}} placeholder of an auth's template. */
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** The longest account label kept: a name to tell accounts apart, not a document. */
export const MAX_ACCOUNT_LABEL = 200;

/** What a verification needs of the run's services: the same outbound client (egress policy, limits) and base URL overrides as a run. */
export type VerifyServices = Pick<RunServices, 'http' | 'settings'>;

/** What a verification found: the account's label, when the auth's `account` expression named one. */
export interface Verified {
  accountLabel: string | null;
}

/**
 * Sends the auth's verification request (its `verify`: the provider's "who am
 * I" call, under the API's base URL) with credentials a caller gives, before
 * anything is stored, through the run's outbound client and with the auth
 * applied as a run applies it. null when the auth declares none.
 * - 401 or 403: 400 VALIDATION_ERROR naming the credential fields (the app
 *   refused these credentials); the caller stores nothing.
 * - another status that is not 2xx: 502 VERIFICATION_FAILED (the app could
 *   not say; nothing is stored either, and the caller may try again).
 * - 2xx: the account label from `account` over the JSON body (text or a
 *   number, at most 200 characters), else null.
 * An app that cannot be reached answers as a run would (UPSTREAM_TIMEOUT, ...).
 */
export async function verifyCredentials(
  services: VerifyServices,
  version: AppVersion,
  auth: AuthEntry,
  secrets: ConnectionSecrets,
  metadata: Record<string, unknown>,
): Promise<Verified | null> {
  // An OAuth auth's verify names the account after the authorization (accountOf); imported tokens are not checked.
  if (auth.type === 'OAuth2AuthorizationCode') return null;
  const answer = await askApp(services, version, auth, secrets, metadata);
  if (answer && 'refused' in answer) throw refused(auth, answer.refused);
  return answer;
}

/**
 * The account label of a new OAuth 2.0 connection: the auth's verification
 * request sent with the access token the callback just obtained. null without
 * a verify, and on any refusal or failure: the label never fails an
 * authorization the provider granted.
 */
export async function accountOf(services: VerifyServices, version: AppVersion, auth: AuthEntry, accessToken: string, metadata: Record<string, unknown>): Promise<string | null> {
  try {
    const answer = await askApp(services, version, auth, { arguments: {}, accessToken }, metadata, accessToken);
    return answer && 'accountLabel' in answer ? answer.accountLabel : null;
  } catch (error) {
    if (error instanceof GatewayError) return null;
    throw error;
  }
}

/**
 * Whether the app still refuses a stored connection's credentials, asked with
 * the auth's verification request after a run got its 401: true only when it
 * answers 401 or 403 too. An auth without a verify, an app that accepts them
 * (the 401 was that endpoint's own), or one that cannot be asked: false, and
 * the connection stays as it is.
 */
export async function stillRefused(services: VerifyServices, version: AppVersion, auth: AuthEntry, secrets: ConnectionSecrets, metadata: Record<string, unknown>): Promise<boolean> {
  try {
    const answer = await askApp(services, version, auth, secrets, metadata);
    return answer !== null && 'refused' in answer;
  } catch (error) {
    if (error instanceof GatewayError) return false;
    throw error;
  }
}

/** The verification request sent: the app's refusal (its status), or what it said of the account; null without a verify. */
async function askApp(
  services: VerifyServices,
  version: AppVersion,
  auth: AuthEntry,
  secrets: ConnectionSecrets,
  metadata: Record<string, unknown>,
  token?: string,
): Promise<{ refused: number } | Verified | null> {
  const verify = (auth.definition as { verify?: Verification }).verify;
  if (!verify) return null;
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...metadata, ...authArgumentValues(auth, secrets) })) {
    if (value !== undefined && value !== null) variables[key] = asText(value);
  }
  // An argument the connection leaves out takes its default, as in a run (GitHub's hidden apiVersion header).
  for (const arg of [...version.api.arguments, ...auth.arguments]) {
    if (!arg.parent && !Object.hasOwn(variables, arg.key) && arg.default !== undefined && arg.default !== null) variables[arg.key] = asText(arg.default);
  }
  const api = apiOf(version, services.settings.appBaseUrls);
  const problems: FieldProblem[] = [];
  const url = fillUrlTemplate(joinUrl(api.baseUrl, verify.path), variables, `auth ${auth.id} verify`, problems, { originVariables: api.definition.originVariables ?? [] });
  // The API's headers, filled as a run fills them (lower-case names: the auth's own header wins over one of them).
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(api.headers)) headers[name.toLowerCase()] = fillTemplate(value, variables, `header ${name}`, problems, headerText);
  const applied = applyAuth(auth, secrets, variables, token);
  if (problems.length) throw validationError(problems);

  const method = verify.method ?? 'GET';
  const response = await services.http.send({
    method,
    url,
    headers: { ...headers, ...applied.headers },
    query: applied.query,
    redirect: applied.redirect,
  });
  if (response.status === 401 || response.status === 403) return { refused: response.status };
  if (response.status < 200 || response.status >= 300) {
    throw GatewayError.of('VERIFICATION_FAILED', `${version.app.name} could not check these credentials (it answered HTTP ${response.status} to ${method} ${verify.path}); nothing was stored, try again`);
  }
  return { accountLabel: await accountLabel(auth, response.body, applied.secretSources) };
}

/**
 * The account's name from the answer; null when the auth names none, or its expression gives no text (a
 * definition's slip never fails a connection). As a run's answer is: every value the connection holds that
 * the app repeats is redacted, control characters become spaces, and it is cut to 200 characters.
 */
async function accountLabel(auth: AuthEntry, body: unknown, secrets: readonly unknown[]): Promise<string | null> {
  if (!auth.verifyAccount || body === null || typeof body !== 'object') return null;
  let value: unknown;
  try {
    value = await evaluateGuarded(auth.verifyAccount as never, body);
  } catch (error) {
    if (error instanceof MappingError) return null;
    throw error;
  }
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = providerText(String(value), secrets, MAX_ACCOUNT_LABEL).trim();
  return text === '' ? null : text;
}

/**
 * The app said no: a form error on each credential the auth sends (the
 * arguments its key, token, username or password template names: an API
 * key, not the workspace beside it), or on the credentials as a whole.
 */
function refused(auth: AuthEntry, status: number): GatewayError {
  const own = new Set(auth.arguments.filter((arg) => !arg.parent).map((arg) => arg.key));
  const definition = auth.definition as { value?: string; token?: string; username?: string; password?: string };
  const templates = [definition.value, definition.token, definition.username, definition.password].filter((t): t is string => typeof t === 'string');
  const keys = [...new Set(templates.flatMap((t) => [...t.matchAll(PLACEHOLDER)].map((m) => m[1]!)))].filter((key) => own.has(key));
  const which = keys.length === 1 ? `this ${keys[0]}` : keys.length ? `these credentials (${keys.join(', ')})` : 'these credentials';
  const message = `the app refused ${which} (HTTP ${status}); check the value and try again`;
  const fields = keys.length ? keys.map((key) => `credentials.${key}`) : ['credentials'];
  return validationError(fields.map((field) => ({ field, rule: 'accepted', message })));
}
