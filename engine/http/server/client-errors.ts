import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../../platform/errors/index.ts';
import type { Logger } from '../../platform/log/logger.ts';
import type { HttpServerSettings } from './settings.ts';

/**
 * What Node cannot read never reaches the app: headers over the limit, a
 * request that is not HTTP, a client too slow for the timeouts. Node's
 * default answer is a bare status with an empty body; this answers the error
 * shape instead (a complete HTTP/1.1 response, then the connection closed),
 * unless an answer to the connection's request has begun already, which
 * another one would corrupt.
 */
export function answerClientErrors(server: http.Server, settings: HttpServerSettings, logger: Logger): void {
  const lastExchange = new WeakMap<Duplex, { req: http.IncomingMessage; res: http.ServerResponse }>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => lastExchange.set(req.socket, { req, res }));
  server.on('clientError', (failure: Error & { code?: string; reason?: string }, socket: Duplex) => {
    const error = clientErrorAnswer(failure, settings);
    const last = lastExchange.get(socket);
    const answerBegun = last !== undefined && last.res.headersSent && (!last.res.writableFinished || !last.req.complete);
    if (!error || !socket.writable || answerBegun) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, error, logger, failure.code, 'request not readable');
  });
  // Node drops a CONNECT without a word when nothing listens for it: it is answered as any method no route takes.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const error = GatewayError.of('METHOD_NOT_ALLOWED', 'CONNECT is not supported: the gateway is no tunnel (the proxy forwards GET, HEAD, POST, PUT, PATCH and DELETE)');
    answerOnSocket(socket, error, logger, 'CONNECT', 'request refused');
  });
}

/** A complete HTTP/1.1 answer in the error shape written on the socket itself, then the connection closed. */
function answerOnSocket(socket: Duplex, error: GatewayError, logger: Logger, cause: string | undefined, what: string): void {
  const reqId = randomUUID();
  logger.info({ reqId, status: error.status, code: error.code, cause }, what);
  const body = JSON.stringify(error.toBody());
  socket.end(
    [
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${reqId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  socket.once('finish', () => socket.destroy());
  // A client that reads nothing cannot keep the socket by never taking the answer.
  setTimeout(() => socket.destroy(), 5000).unref();
}

/** The answer to a request Node could not read; undefined when the client is gone (nothing to answer). */
export function clientErrorAnswer(failure: { code?: string; reason?: string; message: string }, settings: HttpServerSettings): GatewayError | undefined {
  switch (failure.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return GatewayError.of('HEADERS_TOO_LARGE', `the request line and headers exceed the limit of ${settings.maxHeaderBytes} bytes`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return GatewayError.of('PAYLOAD_TOO_LARGE', 'the chunk extensions of the request body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return GatewayError.of(
        'REQUEST_TIMEOUT',
        `the request was not received in time (headers within ${settings.headersTimeoutMs} ms, the whole request within ${settings.requestTimeoutMs} ms)`,
      );
    default:
      return GatewayError.of('BAD_REQUEST', `the request is not valid HTTP/1.1: ${(failure.reason ?? failure.message).slice(0, 200)}`);
  }
}
