import http from 'node:http';
import type { Logger } from '../../platform/log/logger.ts';
import { answerClientErrors } from './client-errors.ts';
import type { HttpServerSettings } from './settings.ts';

/**
 * The gateway's HTTP server: slow clients are cut by the request and header
 * timeouts, oversize headers refused at `maxHeaderBytes`, and whatever Node
 * cannot read is answered in the error shape (client-errors.ts), as is an
 * request without the one valid Host header HTTP/1.1 asks for (middleware/host-header.ts). A request
 * received in time may take as long as its work takes: Node's requestTimeout
 * ends when the request is received, not when it is answered.
 */
export function createHttpServer(handler: http.RequestListener, settings: HttpServerSettings, logger: Logger): http.Server {
  const server = http.createServer(
    {
      maxHeaderSize: settings.maxHeaderBytes,
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      // Node checks the two timeouts every this often (30 s by default, which would stretch small limits).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(settings.headersTimeoutMs / 4))),
      // Node's own refusal of an HTTP/1.1 request without Host is a bare 400 (and it serves two Hosts, or one naming no host) the app never sees: the app refuses it
      // in the error shape instead (middleware/host-header.ts), so every app this server runs must call refuseBadHost.
      requireHostHeader: false,
    },
    handler,
  );
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  answerClientErrors(server, settings, logger);
  return server;
}
