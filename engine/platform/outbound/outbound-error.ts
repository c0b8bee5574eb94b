import { ERROR_STATUS, GatewayError } from '../errors/index.ts';

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'total';

export type OutboundErrorCode = 'UPSTREAM_TIMEOUT' | 'UPSTREAM_UNREACHABLE' | 'RESPONSE_TOO_LARGE' | 'UPSTREAM_PROTOCOL_ERROR' | 'UPSTREAM_BUSY';

/** What went wrong, for logs and for the run endpoint; never a path, query string or header value. */
export interface OutboundErrorDetails {
  /** host[:port] of the hop that failed. */
  host: string;
  phase?: TimeoutPhase;
  /** The limit that was hit, in its unit (ms or bytes or redirects). */
  limit?: number;
  /** The environment variable that sets that limit. */
  setting?: string;
  /** The low-level error code (ECONNREFUSED, UND_ERR_SOCKET, Z_DATA_ERROR, ...), when there was one. */
  cause?: string;
  /** UPSTREAM_BUSY: when to try again (the Retry-After header). */
  retryAfterSeconds?: number;
}

/**
 * A call to a third-party app that produced no usable response. The code is
 * stable; the status is the one a gateway-level error response would use.
 * (EGRESS_DENIED is an EgressDeniedError, from the egress policy.)
 */
export class OutboundError extends GatewayError {
  declare readonly code: OutboundErrorCode;
  declare readonly details: OutboundErrorDetails;

  constructor(code: OutboundErrorCode, message: string, details: OutboundErrorDetails) {
    super(code, ERROR_STATUS[code], message, details);
    this.name = 'OutboundError';
  }
}

export function timeoutError(host: string, phase: TimeoutPhase, limit: number, setting: string): OutboundError {
  const what = {
    connect: 'accept a connection',
    headers: 'send response headers',
    body: 'send more of the response body',
    total: 'complete the response',
  }[phase];
  return new OutboundError('UPSTREAM_TIMEOUT', `${host} did not ${what} within ${limit} ms (${setting})`, { host, phase, limit, setting });
}

export function tooLargeError(host: string, limit: number, setting = 'OUTBOUND_MAX_RESPONSE_BYTES'): OutboundError {
  return new OutboundError('RESPONSE_TOO_LARGE', `the response from ${host} is larger than ${limit} bytes (${setting}); the call was aborted`, { host, limit, setting });
}
