import { GatewayError } from '../../../platform/errors/index.ts';
import type { AppContext } from '../context.ts';

/**
 * An HTTP/1.1 request must name its host (RFC 9112, section 3.2); HTTP/1.0 need not. Node refuses one
 * without itself (its requireHostHeader) with a bare 400: no body, no X-Request-Id, no log line. The
 * server turns that off (http-server.ts) and the error edges (requestEdges, errorEnvelope) call this
 * first, so the refusal is a 400 BAD_REQUEST in the error shape, logged as any request is, on a
 * connection closed after it as Node closed it.
 */
export function refuseMissingHost(ctx: AppContext): void {
  const req = ctx.req;
  if (req.headers.host !== undefined || req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return;
  ctx.res.setHeader('Connection', 'close');
  throw GatewayError.of('BAD_REQUEST', 'an HTTP/1.1 request must have a Host header');
}
