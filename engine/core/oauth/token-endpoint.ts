import { ERROR_STATUS, GatewayError } from '../../platform/errors/index.ts';
import { providerText } from '../../platform/secrets/provider-text.ts';
import type { Abortable, HttpClient } from '../../platform/outbound/index.ts';
import { CREDENTIALS_MAX_BYTES } from '../../platform/validation/json-limits.ts';
import { headerText } from '../arguments/host-variables.ts';

/** What a provider's token endpoint answered, in the names RFC 6749 uses. */
export interface TokenResponse {
  accessToken: string;
  refreshToken: string | undefined;
  expiresIn: number | undefined;
  /** The fields `options.keep` names (metadata key → response field), when the response has them as text, numbers or booleans. */
  kept: Record<string, string>;
}

/** The form fields of a token request that are secrets (RFC 6749, RFC 7636, RFC 7523). */
const SECRET_FIELDS = ['client_secret', 'refresh_token', 'code', 'code_verifier', 'client_assertion', 'password'];

/** What the token endpoint answered when it gave no token: what a renewal decides from (retry, give up, or re-authorize). */
export interface TokenRefusal {
  /** The endpoint's host[:port]. */
  host: string;
  /** The HTTP status it answered. */
  status: number;
  /** Its OAuth `error` code (RFC 6749 §5.2), when it sent one. */
  providerError: string | undefined;
  /** Its Retry-After header, as sent. */
  retryAfter: string | undefined;
}

/** The token endpoint answered, but no token: TOKEN_EXCHANGE_FAILED, with what it said. */
export class TokenEndpointError extends GatewayError {
  declare readonly details: { providerError: string };

  constructor(
    message: string,
    readonly refusal: TokenRefusal,
  ) {
    super('TOKEN_EXCHANGE_FAILED', ERROR_STATUS.TOKEN_EXCHANGE_FAILED, message, { providerError: refusal.providerError ?? `HTTP ${refusal.status}` });
    this.name = 'TokenEndpointError';
  }
}

/**
 * POSTs a form to a provider's token endpoint (RFC 6749 §4.1.3, §4.4, §6)
 * through the outbound client (egress policy, timeouts, size limit) and
 * reads the tokens, JSON or form-encoded (some providers still answer
 * form-encoded). An error answer is TOKEN_EXCHANGE_FAILED with the
 * provider's `error` and `error_description`, each through providerText:
 * every secret sent (the secret form fields, the headers, `secrets`, such as
 * the client secret inside a Basic header) redacted, and cut short.
 */
export async function requestTokens(
  http: HttpClient,
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
  options: { signal?: Abortable; secrets?: readonly string[]; keep?: Readonly<Record<string, string | undefined>> } = {},
): Promise<TokenResponse> {
  const response = await http.send({
    method: 'POST',
    url,
    // The form carries the client secret, the refresh token or the code: it is never re-sent to another origin.
    redirect: { crossOrigin: 'refuse', endpoint: 'the token endpoint', code: 'TOKEN_EXCHANGE_FAILED' },
    ...(options.signal ? { signal: options.signal } : {}),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: form,
  });
  const fields = readFields(response.body, response.headers['content-type'] ?? '');
  const accessToken = fields.access_token;
  const host = new URL(url).host;
  const refusal = { host, status: response.status, providerError: undefined, retryAfter: response.headers['retry-after'] };
  if (response.status < 300 && typeof fields.error !== 'string' && (typeof accessToken !== 'string' || accessToken === '')) {
    throw new TokenEndpointError(`the token endpoint ${host} answered HTTP ${response.status} without an access_token`, refusal);
  }
  if (response.status >= 300 || typeof accessToken !== 'string' || accessToken === '') {
    // The provider's words may echo what it was sent: every secret of the request is redacted from them.
    const sent = [...SECRET_FIELDS.map((name) => form[name]), ...Object.values(headers), ...(options.secrets ?? [])];
    const providerError = typeof fields.error === 'string' ? providerText(fields.error, sent, 100) : undefined;
    const code = providerError ?? `HTTP ${response.status}`;
    const description = typeof fields.error_description === 'string' ? `: ${providerText(fields.error_description, sent)}` : '';
    throw new TokenEndpointError(`the token endpoint ${host} refused: ${code}${description}`, {
      host,
      status: response.status,
      providerError,
      retryAfter: response.headers['retry-after'],
    });
  }
  const refreshToken = typeof fields.refresh_token === 'string' && fields.refresh_token ? fields.refresh_token : undefined;
  for (const [field, token] of [['access_token', accessToken], ['refresh_token', refreshToken]] as const) {
    const problem = token === undefined ? null : tokenProblem(field, token);
    if (problem) throw new TokenEndpointError(`the token endpoint ${host} answered ${problem}`, refusal);
  }
  const expiresIn = Number(fields.expires_in);
  return {
    accessToken,
    refreshToken,
    // Beyond MAX_EXPIRES_IN_S (or no number at all): a token whose expiry is not known, renewed when the app refuses it.
    expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 && expiresIn <= MAX_EXPIRES_IN_S ? expiresIn : undefined,
    kept: keptFields(fields, options.keep ?? {}),
  };
}

/** The longest lifetime read from `expires_in`: 100 years, far past any real token, well inside a date. */
const MAX_EXPIRES_IN_S = 100 * 365 * 24 * 3600;

/**
 * Why a token the endpoint answered could never be used, or null: longer than a connection's credentials may be
 * (it could be stored, then never fit a request), or holding what no header can carry (a line break, a character
 * beyond Latin-1). The token itself is never repeated.
 */
function tokenProblem(field: 'access_token' | 'refresh_token', token: string): string | null {
  const bytes = Buffer.byteLength(token);
  const article = field === 'access_token' ? 'an' : 'a';
  if (bytes > CREDENTIALS_MAX_BYTES) return `${article} ${field} of ${bytes} bytes: a connection holds at most ${CREDENTIALS_MAX_BYTES} bytes of credentials`;
  if (typeof headerText(token) !== 'string') return `${article} ${field} that cannot be sent in a header (a line break or a character beyond Latin-1)`;
  return null;
}

/** The token fields themselves are never kept: they are credentials, not metadata. */
const TOKEN_FIELDS = new Set(['access_token', 'refresh_token', 'id_token']);

function keptFields(fields: Record<string, unknown>, keep: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, field] of Object.entries(keep)) {
    const value = field !== undefined && Object.hasOwn(fields, field) && !TOKEN_FIELDS.has(field) ? fields[field] : undefined;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') Object.defineProperty(kept, key, { value: String(value), enumerable: true });
  }
  return kept;
}

function readFields(body: unknown, contentType: string): Record<string, unknown> {
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  if (typeof body === 'string') return parseBody(body, contentType);
  return {};
}

function parseBody(text: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}
