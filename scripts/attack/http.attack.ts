/**
 * Requests the server cannot read (issue 14, item 6), all sent without
 * authentication: Content-Encodings that are unknown or do not match the
 * body, a gzip bomb, gzip that decodes to nothing, a request line and headers over the limit, a request
 * that is not HTTP, and 200 slow clients (bodies dripped a byte a second,
 * headers a line a second) while `/health` is polled.
 *
 * The gateway child gets small REQUEST_TIMEOUT_MS / HEADERS_TIMEOUT_MS so the
 * slow clients are cut within seconds; every wait here is capped, so the
 * script also finishes against a gateway that ignores them.
 */
import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { pollHealth, round, startAttackGateway, timedFetch, type Attack, type AttackGateway, type AttackReport } from './support.ts';

const REQUEST_TIMEOUT_MS = 4000;
const HEADERS_TIMEOUT_MS = 2000;
/** How long a slow client may be held before the attack stops waiting for the gateway to cut it. */
const SLOW_CAP_MS = 15_000;
const SLOW_CLIENTS = 200;

interface RawAnswer {
  /** HTTP status of the answer, 0 when none came. */
  status: number;
  /** error.code of a JSON error body, '' when none. */
  code: string;
  message: string;
  /** Whether the gateway closed (or reset) the connection within the cap. */
  closed: boolean;
  ms: number;
}

/** Sends `head` (and optionally drips `drip` one piece a second) on a raw socket; resolves when the gateway closes it or after `capMs`. */
function rawRequest(port: number, head: Buffer | string, options: { drip?: string[]; dripEveryMs?: number; capMs?: number } = {}): Promise<RawAnswer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      clearTimeout(cap);
      socket.destroy();
      resolve({ ...parseAnswer(received), closed, ms: round(performance.now() - t0) });
    };
    const cap = setTimeout(() => finish(false), options.capMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk]).subarray(0, 64 * 1024)));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(head);
    const drip = [...(options.drip ?? [])];
    if (drip.length) {
      timer = setInterval(() => {
        const piece = drip.shift();
        if (piece === undefined || socket.destroyed) return clearInterval(timer);
        socket.write(piece);
      }, options.dripEveryMs ?? 1000);
    }
  });
}

function parseAnswer(raw: Buffer): { status: number; code: string; message: string } {
  const text = raw.toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
  const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
  try {
    const body = JSON.parse(bodyText);
    return { status, code: String(body?.error?.code ?? ''), message: String(body?.error?.message ?? '') };
  } catch {
    return { status, code: '', message: bodyText.slice(0, 80) };
  }
}

/** The gateway's peak resident memory so far (Linux), in MB. */
function peakRssMb(gw: AttackGateway): number {
  try {
    const status = fs.readFileSync(`/proc/${gw.process.pid}/status`, 'utf8');
    return round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** `mb` MB of zeros, gzipped in 1 MB steps (the attacker never holds the whole body). */
async function gzipBomb(mb: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => gzip.on('end', resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mb; i++) if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end();
  await ended;
  return Buffer.concat(chunks);
}

export const attack: Attack = {
  name: 'http',
  summary: 'unreadable requests: bad Content-Encoding, gzip bomb, oversize headers, malformed requests, 200 slow clients',
  async run(): Promise<AttackReport> {
    const gw = await startAttackGateway({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) } });
    const port = Number(new URL(gw.url).port);
    const rows: AttackReport['rows'] = [];
    const notes: string[] = [];
    let ok = true;
    const expect = (row: Record<string, string | number | boolean>, status: number, code: string) => {
      const right = row.status === status && row.code === code;
      ok &&= right;
      rows.push({ ...row, expected: `${status} ${code}`, right });
    };
    try {
      // Made before /health is polled: gzipping 200 MB takes this process a second or two.
      const bombs = [await gzipBomb(10), await gzipBomb(200)] as const;
      const health = pollHealth(gw.url);
      const users = `${gw.url}/v1/users`;
      const json = JSON.stringify({ name: 'x' });
      const post = (body: string | Buffer, headers: Record<string, string>) => timedFetch(users, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }, 15_000);

      for (const [coding, status, code] of [
        ['compress', 415, 'UNSUPPORTED_MEDIA_TYPE'],
        ['gzip', 400, 'INVALID_BODY_ENCODING'],
        ['deflate', 400, 'INVALID_BODY_ENCODING'],
        ['br', 400, 'INVALID_BODY_ENCODING'],
      ] as const) {
        const answer = await post(json, { 'content-encoding': coding });
        expect({ case: `Content-Encoding: ${coding} on plain JSON`, status: answer.status, code: answer.body?.error?.code ?? '', message: answer.body?.error?.message ?? '', ms: round(answer.ms) }, status, code);
      }
      const good = await post(zlib.gzipSync(json), { 'content-encoding': 'gzip' });
      // Without authentication a readable body goes on to 401: that is the answer a decodable body gets.
      expect({ case: 'gzip JSON, no key', status: good.status, code: good.body?.error?.code ?? '', ms: round(good.ms) }, 401, 'UNAUTHORIZED');

      for (const [mb, bomb] of [[10, bombs[0]], [200, bombs[1]]] as const) {
        const before = peakRssMb(gw);
        const answer = await post(bomb, { 'content-encoding': 'gzip' });
        expect(
          { case: `gzip bomb: ${mb} MB of zeros as ${round(bomb.length / 1024)} KB`, status: answer.status, code: answer.body?.error?.code ?? '', ms: round(answer.ms), peakRssMb: `${before} -> ${peakRssMb(gw)}` },
          413,
          'PAYLOAD_TOO_LARGE',
        );
      }

      // gzip that decodes to nothing: a header, then empty stored deflate blocks (5 bytes each).
      const emptyBlocks = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]), Buffer.alloc(4_000_000 * 5, Buffer.from([0, 0, 0, 0xff, 0xff]))]);
      const empty = await post(emptyBlocks, { 'content-encoding': 'gzip' });
      expect({ case: 'gzip of empty deflate blocks, 20 MB sent', status: empty.status, code: empty.body?.error?.code ?? '', message: empty.body?.error?.message ?? '', ms: round(empty.ms) }, 413, 'PAYLOAD_TOO_LARGE');

      const longHeader = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect({ case: 'a 20 KB header', ...longHeader }, 431, 'HEADERS_TOO_LARGE');
      const longLine = await rawRequest(port, `GET /health?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect({ case: 'a 20 KB request line', ...longLine }, 431, 'HEADERS_TOO_LARGE');
      const manyHeaders = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-${i}: v`).join('\r\n')}\r\n\r\n`);
      expect({ case: '3000 headers', ...manyHeaders }, 431, 'HEADERS_TOO_LARGE');
      // A validator header the caller writes: compared in one pass, whatever its length (engine/http/server/etag.ts).
      const spaces = await timedFetch(`${gw.url}/connect`, { headers: { 'if-none-match': `${' '.repeat(15_000)}x` } }, 15_000);
      expect({ case: 'If-None-Match of 15 KB of spaces on /connect', status: spaces.status, code: spaces.body?.error?.code ?? '', ms: round(spaces.ms) }, 200, '');
      const garbage = await rawRequest(port, 'HELLO / WORLD\r\n\r\n');
      expect({ case: 'not HTTP', ...garbage }, 400, 'BAD_REQUEST');
      const badChunk = await rawRequest(port, 'POST /v1/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
      expect({ case: 'bad chunk size', ...badChunk }, 400, 'BAD_REQUEST');
      const during = await health.stop();
      rows.push({ case: '/health during the cases above', status: during.failed ? 'failed' : 200, p50Ms: during.p50Ms, maxMs: during.maxMs, polls: during.polls });

      // Slow clients: half drip a body (announced as 100 bytes) a byte a second, half drip headers a line a second.
      const slowHealth = pollHealth(gw.url, 100);
      const bodyHead = 'POST /v1/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
      const drip = Array.from({ length: 60 }, () => ' ');
      const clients = Array.from({ length: SLOW_CLIENTS }, (_, i) =>
        i % 2 === 0
          ? rawRequest(port, bodyHead, { drip, capMs: SLOW_CAP_MS }).then((a) => ({ kind: 'body', ...a }))
          : rawRequest(port, 'POST /v1/users HTTP/1.1\r\n', { drip: drip.map((_, j) => `X-${j}: v\r\n`), capMs: SLOW_CAP_MS }).then((a) => ({ kind: 'headers', ...a })),
      );
      const answers = await Promise.all(clients);
      const slow = await slowHealth.stop();
      for (const kind of ['body', 'headers']) {
        const mine = answers.filter((a) => a.kind === kind);
        const held = mine.filter((a) => !a.closed).length;
        const statuses = [...new Set(mine.map((a) => `${a.status} ${a.code}`.trim()))].join(', ');
        const worst = Math.max(...mine.map((a) => a.ms));
        const right = held === 0 && mine.every((a) => a.status === 408 && a.code === 'REQUEST_TIMEOUT');
        ok &&= right;
        rows.push({
          case: `${mine.length} clients dripping ${kind === 'body' ? 'a body byte' : 'a header line'} a second`,
          status: statuses,
          closed: `${mine.length - held}/${mine.length}`,
          ms: round(worst),
          expected: `408 REQUEST_TIMEOUT, closed within ${kind === 'body' ? REQUEST_TIMEOUT_MS : HEADERS_TIMEOUT_MS} ms (+ check interval)`,
          right,
        });
      }
      rows.push({ case: '/health during the slow clients', status: slow.failed ? `${slow.failed} failed` : 200, p50Ms: slow.p50Ms, maxMs: slow.maxMs, polls: slow.polls });
      notes.push(`gateway child: REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}, HEADERS_TIMEOUT_MS=${HEADERS_TIMEOUT_MS}; slow clients are given up on after ${SLOW_CAP_MS} ms (closed x/y counts those the gateway cut before that)`);
      if (!gw.alive()) {
        ok = false;
        notes.push('the gateway died');
      }
    } finally {
      const stopped = await gw.stop();
      notes.push(`stop: ${stopped.termMs} ms${stopped.killed ? ' (SIGKILL)' : ''}`);
    }
    return { attack: 'http', rows, ok, notes };
  },
};
