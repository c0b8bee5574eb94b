import net from 'node:net';

export interface RawAnswer {
  /** The status of the first answer, 0 when none came. */
  status: number;
  /** Its headers, names lower-cased. */
  headers: Record<string, string>;
  /** Its body, parsed when it is JSON. */
  body: any;
  /** Everything the server sent. */
  text: string;
  /** Whether the server closed (or reset) the connection before `capMs`. */
  closed: boolean;
}

/**
 * Bytes on a plain TCP socket to the gateway, for what fetch will not send
 * (malformed or oversize requests, bodies that stall): writes `head`, then
 * each of `drip` every `dripEveryMs`, and resolves when the server closes the
 * connection, or after `capMs` with `closed: false`.
 */
export function rawExchange(
  url: string,
  head: string | Buffer,
  options: { drip?: Array<string | Buffer>; dripEveryMs?: number; capMs?: number } = {},
): Promise<RawAnswer> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const drip = [...(options.drip ?? [])];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(dripping);
      clearTimeout(cap);
      socket.destroy();
      resolve({ ...parse(Buffer.concat(chunks).toString('utf8')), closed });
    };
    const cap = setTimeout(() => finish(false), options.capMs ?? 10_000);
    const dripping = setInterval(() => {
      const piece = drip.shift();
      if (piece !== undefined && socket.writable) socket.write(piece);
    }, options.dripEveryMs ?? 100);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(head);
  });
}

function parse(text: string): Omit<RawAnswer, 'closed'> {
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
  const split = text.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, split < 0 ? 0 : split).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyText = split < 0 ? '' : text.slice(split + 4);
  let body: unknown = bodyText;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    /* not JSON: the text is the body */
  }
  return { status, headers, body, text };
}
