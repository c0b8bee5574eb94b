import net, { type AddressInfo } from 'node:net';

export interface HeaderEchoApp {
  url: string;
  stop(): Promise<void>;
}

/**
 * An app on 127.0.0.1 that answers every request 401 with the X-Api-Key it
 * received written back in two headers, byte for byte as the test needs
 * them (an HTTP server library would choose the encoding itself): `x-utf8`
 * in UTF-8 (é as C3 A9, as Python, Go, Rails, or Node writing its head with
 * a string body do), `x-latin1` in the Latin-1 bytes it was sent (é as E9).
 */
export function headerEchoApp(): Promise<HeaderEchoApp> {
  const server = net.createServer((socket) => {
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      // Read as Latin-1, the head's characters are the bytes the gateway sent.
      const received = /\r\nx-api-key: ([^\r]*)\r\n/i.exec(head)?.[1] ?? '';
      socket.end(
        Buffer.concat([
          Buffer.from('HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nx-utf8: bad key ', 'latin1'),
          Buffer.from(received, 'utf8'),
          Buffer.from('\r\nx-latin1: bad key ', 'latin1'),
          Buffer.from(received, 'latin1'),
          Buffer.from('\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}', 'latin1'),
        ]),
      );
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        stop: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}
