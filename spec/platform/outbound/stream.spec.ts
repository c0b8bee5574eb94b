import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import zlib from 'node:zlib';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy } from '../../../engine/platform/egress/policy.ts';
import { createHttpClient, type HttpClient } from '../../../engine/platform/outbound/client.ts';
import { OutboundError } from '../../../engine/platform/outbound/outbound-error.ts';
import type { StreamLimits, StreamRequest } from '../../../engine/platform/outbound/stream.ts';

const LIMITS: StreamLimits = {
  maxRequestBytes: 1024 * 1024,
  maxResponseBytes: 1024 * 1024,
  totalTimeoutMs: 5_000,
  settings: { maxRequestBytes: 'PROXY_MAX_REQUEST_BYTES', maxResponseBytes: 'PROXY_MAX_RESPONSE_BYTES', totalTimeoutMs: 'PROXY_TOTAL_TIMEOUT_MS' },
};

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  body: Buffer;
}

/** A server on 127.0.0.1 that reads each request body to its end (counting it) before `handler` answers. */
async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void, keepBody = true) {
  const seen: Seen[] = [];
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (keepBody) chunks.push(chunk);
    });
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, bytes, body: Buffer.concat(chunks) };
      seen.push(entry);
      handler(req, res, entry);
    });
    req.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve()))),
  };
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a failure');
}

describe('outbound HTTP client: the streaming send (bodies both ways, bounded memory)', () => {
  let client: HttpClient;
  const closing: (() => Promise<void>)[] = [];
  beforeEach(() => {
    client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32')), settings: { bodyTimeoutMs: 2_000, headersTimeoutMs: 2_000 } });
  });
  afterEach(async () => {
    await client.close();
    await Promise.all(closing.splice(0).map((close) => close()));
  });
  const send = (request: Omit<StreamRequest, 'limits'> & { limits?: Partial<StreamLimits> }) => client.stream({ ...request, limits: { ...LIMITS, ...request.limits } });

  it("answers at the app's headers, with a body that arrives while the app is still sending", async () => {
    let finish!: () => void;
    const app = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part;');
      finish = () => res.end('second part');
    });
    closing.push(app.close);
    const response = await send({ method: 'GET', url: `${app.url}/file` });
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.equal('text/plain');
    const reader = response.body[Symbol.asyncIterator]();
    expect(String((await reader.next()).value)).to.equal('first part;');
    finish();
    const rest: Buffer[] = [];
    for (let step = await reader.next(); !step.done; step = await reader.next()) rest.push(step.value as Buffer);
    expect(Buffer.concat(rest).toString()).to.equal('second part');
  });

  it('streams an upload to the app, with the Content-Length it was given, and never more than the limit (PAYLOAD_TOO_LARGE naming the setting)', async () => {
    const app = await server((_req, res, seen) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes: seen.bytes })), false);
    closing.push(app.close);
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(16 * 1024, 'x'));
    const ok = await send({ method: 'PUT', url: `${app.url}/upload`, body: Readable.from(chunks), bodyLength: 64 * 16 * 1024 });
    expect(JSON.parse((await buffer(ok.body)).toString())).to.deep.equal({ bytes: 1024 * 1024 });
    expect(app.seen[0]!.headers['content-length']).to.equal(String(1024 * 1024));

    const tooMuch = Readable.from(Array.from({ length: 100 }, () => Buffer.alloc(16 * 1024, 'y')));
    const refused = await failure(send({ method: 'POST', url: `${app.url}/upload`, body: tooMuch, limits: { maxRequestBytes: 256 * 1024 } }));
    expect(refused.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(refused.message).to.include('PROXY_MAX_REQUEST_BYTES');
  });

  it('decodes gzip as it streams, and fails a body that decodes past the limit (RESPONSE_TOO_LARGE naming the setting)', async () => {
    const text = 'line of text\n'.repeat(10_000);
    const bomb = zlib.gzipSync(Buffer.alloc(5 * 1024 * 1024));
    const app = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(req.url === '/bomb' ? bomb : zlib.gzipSync(text));
    });
    closing.push(app.close);
    const plain = await send({ method: 'GET', url: `${app.url}/text` });
    expect(plain.decoded).to.equal(true);
    expect((await buffer(plain.body)).toString()).to.equal(text);
    expect(app.seen[0]!.headers['accept-encoding']).to.equal('gzip, deflate, br');

    const bombed = await send({ method: 'GET', url: `${app.url}/bomb` });
    const error = await failure(buffer(bombed.body));
    expect(error).to.be.instanceOf(OutboundError);
    expect(error.code).to.equal('RESPONSE_TOO_LARGE');
    expect(error.message).to.include('PROXY_MAX_RESPONSE_BYTES');
  });

  it('passes on an answer without content that names a coding: a HEAD, a 204 and a 304 with Content-Encoding: gzip', async () => {
    const app = await server((req, res) => {
      const status = req.url === '/none' ? 204 : req.url === '/same' ? 304 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip', ...(status === 200 ? { 'content-length': '34' } : {}) }).end();
    });
    closing.push(app.close);
    for (const [method, path, status] of [['HEAD', '/', 200], ['GET', '/none', 204], ['GET', '/same', 304]] as const) {
      const answer = await send({ method, url: `${app.url}${path}` });
      expect(answer.status, path).to.equal(status);
      expect((await buffer(answer.body)).length, path).to.equal(0);
    }
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const app = await server((_req, res) => res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) }).end(Buffer.alloc(2 * 1024 * 1024)));
    closing.push(app.close);
    const error = await failure(send({ method: 'GET', url: `${app.url}/big` }));
    expect(error.code).to.equal('RESPONSE_TOO_LARGE');
  });

  it('times the whole call, the body to its end included (phase total, naming the setting)', async () => {
    const app = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const tick = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(tick));
    });
    closing.push(app.close);
    const response = await send({ method: 'GET', url: `${app.url}/trickle`, limits: { totalTimeoutMs: 400 } });
    const error = await failure(buffer(response.body));
    expect(error.code).to.equal('UPSTREAM_TIMEOUT');
    expect(error.message).to.include('PROXY_TOTAL_TIMEOUT_MS');
    expect((error.details as { phase: string }).phase).to.equal('total');
  });

  it('checks every redirect hop with the egress policy: a redirect to a refused address is EGRESS_DENIED, nothing sent there', async () => {
    const app = await server((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    closing.push(app.close);
    const error = await failure(send({ method: 'GET', url: `${app.url}/away` }));
    expect(error.code).to.equal('EGRESS_DENIED');
  });

  it('follows a 307 with bytes it holds, but answers the 307 itself when the body was a stream sent once', async () => {
    const app = await server((req, res, seen) => {
      if (req.url === '/old') res.writeHead(307, { location: '/new' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${seen.body.toString()}`);
    });
    closing.push(app.close);
    const held = await send({ method: 'POST', url: `${app.url}/old`, body: Buffer.from('payload') });
    expect((await buffer(held.body)).toString()).to.equal('POST /new payload');
    expect(held.redirects).to.equal(1);
    const once = await send({ method: 'POST', url: `${app.url}/old`, body: Readable.from([Buffer.from('payload')]) });
    expect(once.status).to.equal(307);
    expect(once.headers.location).to.equal('/new');
    once.discard();
  });

  it('follows a redirect that turns a streamed POST into a GET (303), but answers a 302 of a streamed PUT (the method kept, its body gone)', async () => {
    const app = await server((req, res, seen) => {
      if (req.url === '/see-other') res.writeHead(303, { location: '/result' }).end();
      else if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${seen.bytes}`);
    });
    closing.push(app.close);
    const seeOther = await send({ method: 'POST', url: `${app.url}/see-other`, body: Readable.from([Buffer.from('payload')]) });
    expect((await buffer(seeOther.body)).toString()).to.equal('GET /result 0');
    const moved = await send({ method: 'PUT', url: `${app.url}/moved`, body: Readable.from([Buffer.from('payload')]) });
    expect(moved.status).to.equal(302);
    moved.discard();
    expect(app.seen.map((s) => s.url)).to.deep.equal(['/see-other', '/result', '/moved']);
  });

  it('drops the credentials on a redirect to another origin, as the whole-body send does', async () => {
    const other = await server((req, res, seen) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ auth: req.headers.authorization ?? null, key: req.headers['x-api-key'] ?? null, bytes: seen.bytes })));
    const app = await server((_req, res) => res.writeHead(308, { location: `${other.url}/landing` }).end());
    closing.push(app.close, other.close);
    const response = await send({
      method: 'PUT',
      url: `${app.url}/away`,
      headers: { authorization: 'Bearer t0ken', 'x-api-key': 'k3y-value' },
      body: Buffer.from('carries k3y-value'),
      redirect: { crossOrigin: 'strip', credentialHeaders: ['x-api-key'], secrets: ['k3y-value'] },
    });
    expect(JSON.parse((await buffer(response.body)).toString())).to.deep.equal({ auth: null, key: null, bytes: 0 });
  });
});
