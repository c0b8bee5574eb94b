import { TokenEndpointError } from '../oauth/token-endpoint.ts';
import { ERROR_STATUS, GatewayError } from '../../platform/errors/index.ts';

/** OAuth errors (RFC 6749 §5.2) that mean the grant or the client is gone: asking again cannot help. */
export const GRANT_LOST_ERRORS: readonly string[] = ['invalid_grant', 'invalid_client', 'unauthorized_client'];

/** OAuth errors a provider sends for its own trouble (RFC 6749 §4.1.2.1), whatever the status. */
const TRANSIENT_ERRORS = new Set(['server_error', 'temporarily_unavailable']);

/** Outbound failures of a provider that is down, slow or overloaded for now. */
const TRANSIENT_OUTBOUND = new Set(['UPSTREAM_TIMEOUT', 'UPSTREAM_UNREACHABLE', 'UPSTREAM_PROTOCOL_ERROR', 'RESPONSE_TOO_LARGE', 'UPSTREAM_BUSY']);

/**
 * What a failed token call means for the connection:
 * - `grant-lost`: the provider said the grant (or the client) is gone
 *   (`invalid_grant`, `invalid_client`, `unauthorized_client`, or one of the
 *   auth definition's `grantRevokedErrors`): the connection needs new
 *   credentials, and nothing is retried;
 * - `transient`: 5xx, 408, 429, a timeout, a reset, a refused connection,
 *   a garbled answer: retried, then AUTH_PROVIDER_UNAVAILABLE, and the
 *   connection stays active;
 * - `final`: anything else (another OAuth error, an egress refusal, a
 *   redirect that was not followed, a missing app configuration): answered as
 *   it is, not retried, and the connection stays active, for it is a
 *   configuration problem rather than the grant's.
 */
export function classifyTokenFailure(error: unknown, grantRevokedErrors: readonly string[] = []): 'grant-lost' | 'transient' | 'final' {
  if (error instanceof TokenEndpointError) {
    const { providerError, status } = error.refusal;
    if (providerError !== undefined && (GRANT_LOST_ERRORS.includes(providerError) || grantRevokedErrors.includes(providerError))) return 'grant-lost';
    if (status >= 500 || status === 408 || status === 429 || (providerError !== undefined && TRANSIENT_ERRORS.has(providerError))) return 'transient';
    return 'final';
  }
  if (error instanceof UnrenewableError) return 'grant-lost';
  if (error instanceof GatewayError && TRANSIENT_OUTBOUND.has(error.code)) return 'transient';
  return 'final';
}

/** The connection holds nothing a new token could be obtained with (no refresh token, an app that does not refresh): as good as a lost grant. */
export class UnrenewableError extends GatewayError {
  constructor(message: string) {
    super('TOKEN_EXCHANGE_FAILED', ERROR_STATUS.TOKEN_EXCHANGE_FAILED, message);
    this.name = 'UnrenewableError';
  }
}
