import type http from 'node:http';
import type { Socket } from 'node:net';

/** Connections the gateway itself closed at the end of SHUTDOWN_GRACE_MS: their requests' callers did not go away. */
const cutByGateway = new WeakSet<Socket>();

/**
 * The server's open connections, tracked (per connection, not per request)
 * so that the end of the shutdown grace can close those still busy and say
 * how many it cut. `cutAll` closes the idle ones first, marks each
 * connection left (a request in flight), closes them all, and answers how
 * many it marked.
 */
export function connectionCutter(server: http.Server): { cutAll(): number } {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return {
    cutAll() {
      server.closeIdleConnections();
      let cut = 0;
      for (const socket of open) {
        if (socket.destroyed) continue;
        cutByGateway.add(socket);
        cut++;
      }
      server.closeAllConnections();
      return cut;
    },
  };
}

/** Whether this request's connection was closed by the gateway at the end of the shutdown grace, not by its caller. */
export function cutAtShutdown(socket: Socket | null | undefined): boolean {
  return socket !== null && socket !== undefined && cutByGateway.has(socket);
}
