import http from 'node:http';
import { GatewayError } from '../errors/index.ts';
import { OutboundError, timeoutError } from './outbound-error.ts';
import type { OutboundSettings } from './settings.ts';

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'refused the connection',
  ECONNRESET: 'reset the connection',
  EPIPE: 'closed the connection',
  ENOTFOUND: 'does not resolve (DNS)',
  EAI_AGAIN: 'could not be resolved right now (DNS)',
  EHOSTUNREACH: 'is unreachable (no route to host)',
  ENETUNREACH: 'is unreachable (network unreachable)',
  ETIMEDOUT: 'did not answer (TCP timeout)',
  UND_ERR_SOCKET: 'closed the connection unexpectedly',
  UND_ERR_CLOSED: 'closed the connection unexpectedly',
  CERT_HAS_EXPIRED: 'presented an expired TLS certificate',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'presented a self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'presented a TLS certificate signed by an unknown authority',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'presented a TLS certificate that cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'presented a TLS certificate for another name',
};

const PROTOCOL = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_INFO', 'UND_ERR_NOT_SUPPORTED', 'HPE_INVALID_CONSTANT']);

/**
 * Turns what undici, net, tls or zlib threw into the OutboundError the run
 * endpoint maps (or passes a GatewayError through). A caller's own abort is
 * returned unchanged, and so is anything unrecognised (an internal error).
 */
export function classifyError(error: unknown, host: string, settings: OutboundSettings, totalTimedOut: { ms: number; setting: string } | null): unknown {
  if (error instanceof GatewayError) return error;
  if (totalTimedOut) return timeoutError(host, 'total', totalTimedOut.ms, totalTimedOut.setting);
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? '');
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return timeoutError(host, 'connect', settings.connectTimeoutMs, 'OUTBOUND_CONNECT_TIMEOUT_MS');
    case 'UND_ERR_HEADERS_TIMEOUT':
      return timeoutError(host, 'headers', settings.headersTimeoutMs, 'OUTBOUND_HEADERS_TIMEOUT_MS');
    case 'UND_ERR_BODY_TIMEOUT':
      return timeoutError(host, 'body', settings.bodyTimeoutMs, 'OUTBOUND_BODY_TIMEOUT_MS');
  }
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof GatewayError) return cause;
  const unreachable = UNREACHABLE[code];
  if (unreachable) return new OutboundError('UPSTREAM_UNREACHABLE', `${host} ${unreachable}`, { host, cause: code });
  if (PROTOCOL.has(code) || code.startsWith('HPE_') || (error as Error | undefined)?.name === 'HTTPParserError') {
    return new OutboundError('UPSTREAM_PROTOCOL_ERROR', `${host} sent a response that is not valid HTTP`, { host, cause: code || 'HTTPParserError' });
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new OutboundError('UPSTREAM_PROTOCOL_ERROR', `${host} sent response headers larger than the HTTP client takes (${http.maxHeaderSize} bytes)`, {
      host,
      limit: http.maxHeaderSize,
      cause: code,
    });
  }
  // undici asserts, while it reads an answer, what a server may not do: a 101 to a request that asked for no upgrade,
  // a status below 100. Its own code (ERR_ASSERTION) says nothing to a reader of the answer: the cause is said in HTTP words.
  if (code === 'ERR_ASSERTION' && /\bundici\b/.test((error as Error).stack ?? '')) {
    const upgrade = /\bupgrade\b/.test((error as Error).message);
    return new OutboundError('UPSTREAM_PROTOCOL_ERROR', upgrade ? `${host} switched protocols (101) though no upgrade was asked for` : `${host} sent a response the HTTP client cannot read`, {
      host,
      cause: upgrade ? 'UNREQUESTED_UPGRADE' : 'UNREADABLE_RESPONSE',
    });
  }
  return error;
}
