import { GatewayError } from '../../../platform/errors/index.ts';
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.ts';

/**
 * A Host header's value: a registered name (the characters RFC 3986 allows in one), an IPv4 address or
 * an IPv6 one in brackets, with an optional port (RFC 9110, section 7.2). Not empty: an http URI must
 * have a host (RFC 9110, section 4.2.1).
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?$/;

/**
 * What RFC 9112 (section 3.2) asks a server to refuse with a 400: an HTTP/1.1 request without a Host
 * header (HTTP/1.0 need not send one), a request with more than one, and one whose value is not a host.
 * Node refuses the first itself (its requireHostHeader) with a bare 400: no body, no X-Request-Id, no
 * log line; it serves the second by its first Host line and the third as it is. The server turns
 * requireHostHeader off (http-server.ts) and the error edges (requestEdges, errorEnvelope) call this
 * first, so each refusal is a 400 BAD_REQUEST in the error shape, logged as any request is, on a
 * connection closed after it (as Node closed it).
 */
export function refuseBadHost(ctx: AppContext): void {
  const problem = hostProblem(ctx.req);
  if (problem !== null) refuse(ctx, problem);
}

/** Why refuseBadHost would refuse this request, or null when its Host is the one valid header (the run lane, runs/run-lane.ts, leaves such a request to Koa). */
export function hostProblem(req: IncomingMessage): string | null {
  const host = req.headers.host;
  if (host === undefined) return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? 'an HTTP/1.1 request must have a Host header' : null;
  const lines = hostLines(req.rawHeaders);
  if (lines > 1) return `a request must have one Host header, not ${lines}`;
  if (!HOST.test(host)) return `the Host header must be a host with an optional port (RFC 9110, section 7.2), not ${JSON.stringify(host)}`;
  return null;
}

function refuse(ctx: AppContext, message: string): never {
  ctx.res.setHeader('Connection', 'close');
  throw GatewayError.of('BAD_REQUEST', message);
}

/** How many header lines are named Host (Node keeps the first in req.headers and drops the others). */
function hostLines(raw: string[]): number {
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') lines++;
  }
  return lines;
}
