import { GatewayError } from '../errors/index.ts';

/** What a provider's token endpoint answered, in the names RFC 6749 uses. */
export interface TokenResponse {
  accessToken: string;
  refreshToken: string | undefined;
  expiresIn: number | undefined;
}

export const TOKEN_TIMEOUT_MS = 15_000;

/**
 * POSTs a form to a provider's token endpoint (RFC 6749 §4.1.3, §4.4, §6)
 * and reads the tokens, JSON or form-encoded (some providers still answer
 * form-encoded). An error answer is TOKEN_EXCHANGE_FAILED with the
 * provider's `error` code, never the tokens or the client secret.
 */
export async function requestTokens(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<TokenResponse> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch (error) {
    throw GatewayError.of('TOKEN_EXCHANGE_FAILED', `the token endpoint ${new URL(url).host} could not be reached (${(error as Error).name})`);
  }
  const text = await response.text();
  const fields = parseBody(text, response.headers.get('content-type') ?? '');
  const accessToken = fields.access_token;
  if (!response.ok || typeof accessToken !== 'string' || accessToken === '') {
    const code = typeof fields.error === 'string' ? fields.error : `HTTP ${response.status}`;
    const description = typeof fields.error_description === 'string' ? `: ${fields.error_description.slice(0, 200)}` : '';
    throw GatewayError.of('TOKEN_EXCHANGE_FAILED', `the token endpoint ${new URL(url).host} refused: ${code}${description}`, { providerError: code });
  }
  const expiresIn = Number(fields.expires_in);
  return {
    accessToken,
    refreshToken: typeof fields.refresh_token === 'string' && fields.refresh_token ? fields.refresh_token : undefined,
    expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined,
  };
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
