import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import net from 'node:net';
import zlib from 'node:zlib';
import { MockAgent } from 'undici';
import type { GatewayError } from '../../../engine/platform/errors/index.ts';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy } from '../../../engine/platform/egress/policy.ts';
import { loadConfig } from '../../../engine/config/config.ts';
import { CallStop } from '../../../engine/platform/outbound/call-stop.ts';
import { createHttpClient, type HttpClient, type HttpClientOptions } from '../../../engine/platform/outbound/client.ts';
import { createConfiguredHttpClient } from '../../../engine/platform/outbound/from-config.ts';
import { OutboundError } from '../../../engine/platform/outbound/outbound-error.ts';
import type { OutboundRequest } from '../../../engine/platform/outbound/types.ts';
import { startLocalServer, type LocalServer } from './local-server.ts';

const LOCAL = createEgressPolicy(parseEgressAllow('127.0.0.1/32'));

function localClient(settings: HttpClientOptions['settings'] = {}): HttpClient {
  return createHttpClient({ policy: LOCAL, settings });
}

async function failure(client: HttpClient, request: OutboundRequest): Promise<OutboundError> {
  try {
    await client.send(request);
  } catch (error) {
    expect(error).to.be.instanceOf(OutboundError);
    return error as OutboundError;
  }
  throw new Error('expected the call to fail');
}

describe('outbound HTTP client', () => {
  const servers: LocalServer[] = [];
  const clients: HttpClient[] = [];
  async function server(...args: Parameters<typeof startLocalServer>): Promise<LocalServer> {
    const started = await startLocalServer(...args);
    servers.push(started);
    return started;
  }
  function client(settings: HttpClientOptions['settings'] = {}): HttpClient {
    const made = localClient(settings);
    clients.push(made);
    return made;
  }
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  describe('a response', () => {
    it('sends the method, query and JSON body, and answers status, lower-case headers, parsed JSON, sizes and duration', async () => {
      const upstream = await server((_req, res, body) => {
        res.writeHead(201, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'abc' }).end(JSON.stringify({ echoed: JSON.parse(body) }));
      });
      const response = await client().send({
        method: 'post',
        url: `${upstream.url}/items?fixed=1`,
        headers: { Authorization: 'Bearer t0ken' },
        query: { tag: ['a', 'b'], limit: 10, skip: null },
        body: { name: 'Ada', tags: ['x'] },
      });
      expect(upstream.requests[0]).to.include({ method: 'POST', url: '/items?fixed=1&tag=a&tag=b&limit=10' });
      expect(upstream.requests[0]!.headers).to.include({ 'content-type': 'application/json', authorization: 'Bearer t0ken' });
      expect(response.status).to.equal(201);
      expect(response.headers).to.include({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'abc' });
      expect(response.body).to.deep.equal({ echoed: { name: 'Ada', tags: ['x'] } });
      expect(response.invalidJson).to.equal(undefined);
      expect(response.rawBytes).to.equal(Buffer.byteLength(JSON.stringify({ echoed: { name: 'Ada', tags: ['x'] } })));
      expect(response.rawBody.toString()).to.equal(JSON.stringify(response.body));
      expect(response.durationMs).to.be.a('number').and.at.least(0);
      expect(response.redirects).to.equal(0);
    });

    it('sets Host, Connection and Content-Length itself, whatever the caller gave', async () => {
      const upstream = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      await client().send({
        method: 'PUT',
        url: `${upstream.url}/x`,
        headers: { Host: 'evil.example', Connection: 'close', 'Content-Length': '999', 'Transfer-Encoding': 'chunked' },
        body: { a: 1 },
      });
      expect(upstream.requests[0]!.headers).to.include({ host: `127.0.0.1:${upstream.port}`, 'content-length': '7' });
      expect(upstream.requests[0]!.body).to.equal('{"a":1}');
    });

    it('refuses a header value with a character beyond Latin-1 as VALIDATION_ERROR, naming the header but not the value', async () => {
      const upstream = await server((_req, res) => res.end());
      try {
        await client().send({ method: 'GET', url: upstream.url, headers: { Authorization: 'Bearer “k3y€”' } });
        expect.fail('expected VALIDATION_ERROR');
      } catch (error) {
        const body = (error as GatewayError).toBody();
        expect(body.error.code).to.equal('VALIDATION_ERROR');
        expect(body.error.message).to.equal('headers.authorization: must be Latin-1 text: HTTP cannot send a character beyond U+00FF (typographic quotes or a euro sign, say)');
        expect(JSON.stringify(body)).not.to.include('k3y');
      }
      expect(upstream.requests).to.have.length(0);
    });

    it('refuses a header value with a line break as VALIDATION_ERROR, naming the header but not the value', async () => {
      const upstream = await server((_req, res) => res.end());
      try {
        await client().send({ method: 'GET', url: upstream.url, headers: { 'X-Api-Key': 'k3y\r\nX-Injected: 1' } });
        expect.fail('expected VALIDATION_ERROR');
      } catch (error) {
        const body = (error as GatewayError).toBody();
        expect(body.error.code).to.equal('VALIDATION_ERROR');
        expect(body.error.message).to.equal('headers.x-api-key: must not contain line breaks or NUL characters');
        expect(JSON.stringify(body)).not.to.include('k3y');
      }
      expect(upstream.requests).to.have.length(0);
    });

    it('answers an error status as a response, not an error', async () => {
      const upstream = await server((_req, res) => res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"title":"Not Found"}'));
      const response = await client().send({ method: 'GET', url: `${upstream.url}/missing` });
      expect(response.status).to.equal(404);
      expect(response.body).to.deep.equal({ title: 'Not Found' });
    });

    it('gives text for a non-JSON type, null for an empty body, and the text with invalidJson for broken JSON', async () => {
      const upstream = await server((req, res) => {
        if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('héllo');
        else if (req.url === '/empty') res.writeHead(204).end();
        else res.writeHead(502, { 'content-type': 'application/json' }).end('<html>Bad gateway</html>');
      });
      const c = client();
      expect((await c.send({ method: 'GET', url: `${upstream.url}/text` })).body).to.equal('héllo');
      expect((await c.send({ method: 'GET', url: `${upstream.url}/empty` })).body).to.equal(null);
      const broken = await c.send({ method: 'GET', url: `${upstream.url}/broken` });
      expect(broken).to.include({ status: 502, body: '<html>Bad gateway</html>', invalidJson: true });
    });

    for (const [coding, encode] of [
      ['gzip', zlib.gzipSync],
      ['deflate', zlib.deflateSync],
      ['br', zlib.brotliCompressSync],
    ] as const) {
      it(`decodes a ${coding} body, having offered gzip, deflate and br`, async () => {
        const payload = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i })) });
        const upstream = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding }).end(encode(payload)));
        const response = await client().send({ method: 'GET', url: upstream.url });
        expect(upstream.requests[0]!.headers['accept-encoding']).to.equal('gzip, deflate, br');
        expect((response.body as { items: unknown[] }).items).to.have.length(200);
        expect(response.rawBytes).to.equal(payload.length);
        expect(response.wireBytes).to.be.below(payload.length);
      });
    }

    it('reads no content, not a broken gzip, from an empty 200, a 204 and a 304 that name Content-Encoding: gzip', async () => {
      const upstream = await server((req, res) => res.writeHead(req.url === '/none' ? 204 : req.url === '/same' ? 304 : 200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end());
      for (const path of ['/empty', '/none', '/same']) {
        const response = await client().send({ method: 'GET', url: `${upstream.url}${path}` });
        expect(response.body, path).to.equal(null);
      }
    });

    it('answers UPSTREAM_PROTOCOL_ERROR for a body that is not the gzip it claims to be', async () => {
      const upstream = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('{"plain":true}'));
      const error = await failure(client(), { method: 'GET', url: upstream.url });
      expect(error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
      expect(error.message).to.equal(`the response from 127.0.0.1:${upstream.port} is not valid gzip data`);
    });

    it('reuses a keep-alive connection for calls to the same origin', async () => {
      const upstream = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const c = client();
      for (let i = 0; i < 6; i++) {
        await c.send({ method: 'GET', url: upstream.url });
      }
      expect(upstream.requests).to.have.length(6);
      expect(upstream.connections()).to.be.at.most(2);
    });
  });

  describe('limits', () => {
    it('refuses a response whose Content-Length is over the limit, naming the host and the limit', async () => {
      const upstream = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' }).end('x'.repeat(5000)));
      const error = await failure(client({ maxResponseBytes: 1000 }), { method: 'GET', url: upstream.url });
      expect(error.code).to.equal('RESPONSE_TOO_LARGE');
      expect(error.message).to.equal(`the response from 127.0.0.1:${upstream.port} is larger than 1000 bytes (OUTBOUND_MAX_RESPONSE_BYTES); the call was aborted`);
    });

    it('aborts a streamed (chunked) response as soon as it passes the limit', async () => {
      let chunksWritten = 0;
      const upstream = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => {
          chunksWritten++;
          if (!res.write('y'.repeat(1024))) return;
        }, 5);
        res.on('close', () => clearInterval(timer));
      });
      const error = await failure(client({ maxResponseBytes: 4096 }), { method: 'GET', url: upstream.url });
      expect(error.code).to.equal('RESPONSE_TOO_LARGE');
      expect(error.details.limit).to.equal(4096);
      expect(chunksWritten).to.be.below(1000);
    });

    it('aborts a small compressed body that decodes past the limit (a decompression bomb)', async () => {
      const bomb = zlib.gzipSync(new Uint8Array(5 * 1024 * 1024));
      const upstream = await server((_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(bomb));
      expect(bomb.length).to.be.below(64 * 1024);
      const error = await failure(client({ maxResponseBytes: 256 * 1024 }), { method: 'GET', url: upstream.url });
      expect(error.code).to.equal('RESPONSE_TOO_LARGE');
    });

    it('times out waiting for headers: UPSTREAM_TIMEOUT, phase headers, naming the host and the limit but no credentials', async () => {
      const upstream = await server(() => undefined); // never answers
      const error = await failure(client({ headersTimeoutMs: 150 }), {
        method: 'GET',
        url: `${upstream.url}/slow?api_key=s3cret`,
        headers: { authorization: 'Bearer s3cret' },
      });
      expect(error.code).to.equal('UPSTREAM_TIMEOUT');
      expect(error.details).to.include({ phase: 'headers', limit: 150, host: `127.0.0.1:${upstream.port}` });
      expect(error.message).to.equal(`127.0.0.1:${upstream.port} did not send response headers within 150 ms (OUTBOUND_HEADERS_TIMEOUT_MS)`);
      expect(JSON.stringify(error.toBody())).not.to.include('s3cret');
    });

    it('times out when the body stalls: phase body', async () => {
      const upstream = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":'); // and never more
      });
      const error = await failure(client({ bodyTimeoutMs: 150 }), { method: 'GET', url: upstream.url });
      expect(error.details).to.include({ phase: 'body', limit: 150 });
    });

    it('times out a response that trickles forever: phase total', async () => {
      const upstream = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 20);
        res.on('close', () => clearInterval(timer));
      });
      const error = await failure(client({ totalTimeoutMs: 300, bodyTimeoutMs: 20_000 }), { method: 'GET', url: upstream.url });
      expect(error.code).to.equal('UPSTREAM_TIMEOUT');
      expect(error.details).to.include({ phase: 'total', limit: 300, setting: 'OUTBOUND_TOTAL_TIMEOUT_MS' });
    });

    it('times out connecting (here: a name resolution that never answers): phase connect', async () => {
      const policy = createEgressPolicy(parseEgressAllow(undefined), { resolve: () => undefined });
      const c = createHttpClient({ policy, settings: { connectTimeoutMs: 150 } });
      clients.push(c);
      const error = await failure(c, { method: 'GET', url: 'http://stuck.example.test/' });
      expect(error.code).to.equal('UPSTREAM_TIMEOUT');
      expect(error.details).to.include({ phase: 'connect', limit: 150, host: 'stuck.example.test' });
    });

    it('answers UPSTREAM_UNREACHABLE when nothing listens', async () => {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as net.AddressInfo).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const error = await failure(client(), { method: 'GET', url: `http://127.0.0.1:${port}/` });
      expect(error.code).to.equal('UPSTREAM_UNREACHABLE');
      expect(error.message).to.equal(`127.0.0.1:${port} refused the connection`);
    });

    it('answers UPSTREAM_PROTOCOL_ERROR for a reply that is not HTTP', async () => {
      const sockets: net.Socket[] = [];
      const garbage = net.createServer((socket) => {
        sockets.push(socket);
        socket.end('HELLO THERE\r\n\r\n');
      });
      await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
      try {
        const port = (garbage.address() as net.AddressInfo).port;
        const error = await failure(client(), { method: 'GET', url: `http://127.0.0.1:${port}/` });
        expect(error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
      } finally {
        sockets.forEach((socket) => socket.destroy());
        await new Promise<void>((resolve) => garbage.close(() => resolve()));
      }
    });
  });

  describe('answers an app cannot give', () => {
    const rawServer = async (reply: string) => {
      const sockets: net.Socket[] = [];
      const raw = net.createServer((socket) => {
        sockets.push(socket);
        socket.once('data', () => socket.write(reply));
      });
      await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
      return {
        url: `http://127.0.0.1:${(raw.address() as net.AddressInfo).port}`,
        close: async () => {
          sockets.forEach((socket) => socket.destroy());
          await new Promise<void>((resolve) => raw.close(() => resolve()));
        },
      };
    };

    it('answers UPSTREAM_PROTOCOL_ERROR for response headers larger than the client takes', async () => {
      const headers = Array.from({ length: 200 }, (_, i) => `X-Big-${i}: ${'a'.repeat(400)}\r\n`).join('');
      const raw = await rawServer(`HTTP/1.1 200 OK\r\n${headers}Content-Length: 2\r\n\r\n{}`);
      try {
        const error = await failure(client(), { method: 'GET', url: `${raw.url}/` });
        expect(error).to.be.instanceOf(OutboundError);
        expect(error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
        expect(error.message).to.match(/^127\.0\.0\.1:\d+ sent response headers larger than the HTTP client takes \(\d+ bytes\)$/);
      } finally {
        await raw.close();
      }
    });

    it('answers UPSTREAM_PROTOCOL_ERROR for a 101 Switching Protocols nobody asked for', async () => {
      const raw = await rawServer('HTTP/1.1 101 Switching Protocols\r\nConnection: keep-alive\r\n\r\n');
      try {
        const error = await failure(client(), { method: 'GET', url: `${raw.url}/` });
        expect(error).to.be.instanceOf(OutboundError);
        expect(error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
        expect(error.message).to.match(/^127\.0\.0\.1:\d+ switched protocols \(101\) though no upgrade was asked for$/);
      } finally {
        await raw.close();
      }
    });

    it('answers UPSTREAM_PROTOCOL_ERROR for a status below 100, its cause in HTTP words (not the client\'s internal assertion)', async () => {
      const raw = await rawServer('HTTP/1.1 099 Weird\r\nContent-Length: 0\r\n\r\n');
      try {
        const error = await failure(client(), { method: 'GET', url: `${raw.url}/` });
        expect(error).to.be.instanceOf(OutboundError);
        expect(error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
        expect(error.message).to.match(/^127\.0\.0\.1:\d+ sent a response the HTTP client cannot read$/);
        expect(error.details).to.include({ cause: 'UNREADABLE_RESPONSE' });
      } finally {
        await raw.close();
      }
    });
  });

  describe('redirects', () => {
    it('follows a 302 from a POST as a GET, and a 307 with the method and body', async () => {
      const upstream = await server((req, res) => {
        if (req.url === '/old') res.writeHead(302, { location: '/new' }).end();
        else if (req.url === '/temp') res.writeHead(307, { location: '/kept' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: req.url, method: req.method }));
      });
      const c = client();
      const moved = await c.send({ method: 'POST', url: `${upstream.url}/old`, body: { a: 1 } });
      expect(moved.body).to.deep.equal({ at: '/new', method: 'GET' });
      expect(moved).to.include({ redirects: 1, url: `${upstream.url}/new` });
      const kept = await c.send({ method: 'POST', url: `${upstream.url}/temp`, body: { a: 1 } });
      expect(kept.body).to.deep.equal({ at: '/kept', method: 'POST' });
      expect(upstream.requests.at(-1)!.body).to.equal('{"a":1}');
    });

    it('keeps Authorization on the same origin and drops it, and the credential headers named, across origins', async () => {
      const other = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const upstream = await server((req, res) => {
        if (req.url === '/same') res.writeHead(301, { location: '/landing' }).end();
        else if (req.url === '/away') res.writeHead(308, { location: `${other.url}/landing` }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      const c = client();
      const headers = { authorization: 'Bearer t0ken', 'x-api-key': 'k3y', accept: 'application/json' };
      await c.send({ method: 'GET', url: `${upstream.url}/same`, headers, redirect: { crossOrigin: 'strip', credentialHeaders: ['X-Api-Key'] } });
      expect(upstream.requests.at(-1)!.headers).to.include({ authorization: 'Bearer t0ken', 'x-api-key': 'k3y' });
      await c.send({ method: 'GET', url: `${upstream.url}/away`, headers, redirect: { crossOrigin: 'strip', credentialHeaders: ['X-Api-Key'] } });
      const landed = other.requests.at(-1)!.headers;
      expect(landed.authorization).to.equal(undefined);
      expect(landed['x-api-key']).to.equal(undefined);
      expect(landed.accept).to.equal('application/json');
    });

    it('across origins, also drops the credential query parameters and any header, parameter or 307 body holding a secret', async () => {
      const other = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const upstream = await server((_req, res) => res.writeHead(307, { location: `${other.url}/landing?key=k3y-value&echo=x-k3y-value-x&keep=1` }).end());
      const c = client();
      await c.send({
        method: 'POST',
        url: `${upstream.url}/away?key=k3y-value`,
        headers: { 'x-trace': 'k3y-value', 'x-other': 'fine' },
        body: { note: 'carries k3y-value' },
        redirect: { crossOrigin: 'strip', credentialQuery: ['key'], secrets: ['k3y-value'] },
      });
      const landed = other.requests.at(-1)!;
      expect(landed.url).to.equal('/landing?keep=1');
      expect(landed.headers['x-trace']).to.equal(undefined);
      expect(landed.headers['x-other']).to.equal('fine');
      expect(landed.body).to.equal('');
      expect(upstream.requests.at(-1)!.body).to.equal('{"note":"carries k3y-value"}');
    });

    it('follows no redirect to another origin for a call whose policy refuses it, naming the endpoint; the other origin gets nothing', async () => {
      const other = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const upstream = await server((req, res) => {
        if (req.url === '/token') res.writeHead(307, { location: `${other.url}/token` }).end();
        else if (req.url === '/here') res.writeHead(307, { location: '/token2' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      const c = client();
      const redirect = { crossOrigin: 'refuse', endpoint: 'the token endpoint', code: 'TOKEN_EXCHANGE_FAILED' } as const;
      const error = (await c
        .send({ method: 'POST', url: `${upstream.url}/token`, body: 'client_secret=s', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect })
        .then(
          () => expect.fail('the redirect was followed'),
          (thrown: unknown) => thrown,
        )) as GatewayError;
      expect(error.code).to.equal('TOKEN_EXCHANGE_FAILED');
      expect(error.status).to.equal(502);
      expect(error.message).to.equal(
        `the token endpoint 127.0.0.1:${upstream.port} redirected to another origin (${other.url}); the redirect was not followed, so nothing was sent there`,
      );
      expect(other.requests).to.have.length(0);
      const same = await c.send({ method: 'POST', url: `${upstream.url}/here`, body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect });
      expect(same.body).to.deep.equal({ ok: true });
    });

    it('gives up after OUTBOUND_MAX_REDIRECTS with UPSTREAM_PROTOCOL_ERROR', async () => {
      const upstream = await server((req, res) => res.writeHead(302, { location: `/loop${Number(req.url!.slice(5) || 0) + 1}` }).end());
      const error = await failure(client({ maxRedirects: 3 }), { method: 'GET', url: `${upstream.url}/loop0` });
      expect(error.code).to.equal('UPSTREAM_PROTOCOL_ERROR');
      expect(error.message).to.equal(`127.0.0.1:${upstream.port} redirected more than 3 times (OUTBOUND_MAX_REDIRECTS)`);
      expect(upstream.requests).to.have.length(4);
    });

    it('returns the 3xx as it is when redirects are off', async () => {
      const upstream = await server((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
      const response = await client({ maxRedirects: 0 }).send({ method: 'GET', url: upstream.url });
      expect(response.status).to.equal(302);
      expect(response.headers.location).to.equal('/elsewhere');
    });
  });

  describe('as configured', () => {
    it('takes its limits and EGRESS_ALLOW from the configuration', async () => {
      const upstream = await server(() => undefined); // never answers
      const config = loadConfig({ OUTBOUND_HEADERS_TIMEOUT_MS: '120', EGRESS_ALLOW: '127.0.0.1/32' });
      const c = createConfiguredHttpClient(config);
      clients.push(c);
      const error = await failure(c, { method: 'GET', url: upstream.url });
      expect(error.details).to.include({ phase: 'headers', limit: 120 });
      const denied = await c.send({ method: 'GET', url: 'http://10.0.0.1/' }).catch((e: GatewayError) => e);
      expect((denied as GatewayError).code).to.equal('EGRESS_DENIED');
    });

    it('passes on a caller abort as it is, not as an upstream error', async () => {
      const upstream = await server(() => undefined); // never answers
      const controller = new AbortController();
      const pending = client().send({ method: 'GET', url: upstream.url, signal: controller.signal });
      setImmediate(() => controller.abort(new Error('client went away')));
      const error = await pending.catch((e: unknown) => e);
      expect(error).not.to.be.instanceOf(OutboundError);
      expect((error as Error).message).to.equal('client went away');
    });

    it('takes a CallStop as the caller signal: an abort mid-call, or before it, passes on as it is', async () => {
      let received = 0;
      const upstream = await server(() => {
        received++;
      }); // never answers
      const stop = new CallStop();
      const pending = client().send({ method: 'GET', url: upstream.url, signal: stop });
      setTimeout(() => stop.abort(new Error('client went away')), 50);
      const error = await pending.catch((e: unknown) => e);
      expect(error).not.to.be.instanceOf(OutboundError);
      expect((error as Error).message).to.equal('client went away');
      expect(stop.listenerCount('abort')).to.equal(0);
      expect(received).to.equal(1);

      const early = await client().send({ method: 'GET', url: upstream.url, signal: stop }).catch((e: unknown) => e);
      expect((early as Error).message).to.equal('client went away');
      expect(received).to.equal(1);
    });

    it('stops listening to the caller signal once a call is answered', async () => {
      const upstream = await server((_req, res) => res.end('ok'));
      const stop = new CallStop();
      const controller = new AbortController();
      expect((await client().send({ method: 'GET', url: upstream.url, signal: stop })).status).to.equal(200);
      expect((await client().send({ method: 'GET', url: upstream.url, signal: controller.signal })).status).to.equal(200);
      expect(stop.listenerCount('abort')).to.equal(0);
      expect(getEventListeners(controller.signal, 'abort')).to.have.length(0);
    });
  });

  describe('with an injected dispatcher (undici MockAgent)', () => {
    let agent: MockAgent;
    beforeEach(() => {
      agent = new MockAgent();
      agent.disableNetConnect();
    });
    afterEach(() => agent.close());

    it('sends through it: query, a form body, and the answer', async () => {
      const pool = agent.get('https://api.example.test');
      pool
        .intercept({ path: '/oauth/token?grant=refresh', method: 'POST', body: 'refresh_token=r1&scope=a+b' })
        .reply(200, { access_token: 'new' }, { headers: { 'content-type': 'application/json' } });
      const c = createHttpClient({ dispatcher: agent });
      const response = await c.send({
        method: 'POST',
        url: 'https://api.example.test/oauth/token',
        query: { grant: 'refresh' },
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: { refresh_token: 'r1', scope: 'a b' },
      });
      expect(response).to.include({ status: 200 });
      expect(response.body).to.deep.equal({ access_token: 'new' });
      agent.assertNoPendingInterceptors();
    });

    it('writes nested form values with brackets: objects by member, arrays by index', async () => {
      let sent = '';
      agent
        .get('https://api.example.test')
        .intercept({
          path: '/v1/customers',
          method: 'POST',
          body: (body: string) => {
            sent = body;
            return true;
          },
        })
        .reply(200, {}, { headers: { 'content-type': 'application/json' } });
      await createHttpClient({ dispatcher: agent }).send({
        method: 'POST',
        url: 'https://api.example.test/v1/customers',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: { email: 'a@b.test', address: { line1: '1 Main St', country: 'US' }, types: ['card', 'link'], items: [{ price: 'p1', quantity: 2 }], gone: null },
      });
      expect(decodeURIComponent(sent).split('&')).to.deep.equal([
        'email=a@b.test',
        'address[line1]=1+Main+St',
        'address[country]=US',
        'types[0]=card',
        'types[1]=link',
        'items[0][price]=p1',
        'items[0][quantity]=2',
      ]);
    });

    it('still refuses IP-literal destinations before dispatching', async () => {
      const c = createHttpClient({ dispatcher: agent });
      try {
        await c.send({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' });
        expect.fail('expected EGRESS_DENIED');
      } catch (error) {
        expect((error as { code: string }).code).to.equal('EGRESS_DENIED');
      }
    });
  });
});
