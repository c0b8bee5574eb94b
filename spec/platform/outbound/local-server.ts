import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  url: string;
  port: number;
  /** Requests seen, in order: method, path with query, lower-case headers, body text. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 (a free port) answering with `handler`; the only upstream these specs call over a real socket. */
export async function startLocalServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += String(chunk)));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Counts net.Socket#connect calls while `fn` runs: zero means no connection was even attempted. */
export async function countConnectAttempts<T>(fn: () => Promise<T>): Promise<{ result: T | undefined; error: unknown; attempts: number }> {
  const original = net.Socket.prototype.connect;
  let attempts = 0;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    attempts++;
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  try {
    return { result: await fn(), error: undefined, attempts };
  } catch (error) {
    return { result: undefined, error, attempts };
  } finally {
    net.Socket.prototype.connect = original;
  }
}
