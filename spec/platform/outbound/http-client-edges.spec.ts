import { expect } from 'chai';
import type { GatewayError } from '../../../engine/platform/errors/index.ts';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { EgressDeniedError } from '../../../engine/platform/egress/egress-denied.ts';
import { createEgressPolicy } from '../../../engine/platform/egress/policy.ts';
import { createHttpClient, type HttpClient } from '../../../engine/platform/outbound/client.ts';
import { OutboundError } from '../../../engine/platform/outbound/outbound-error.ts';
import { startLocalServer, type LocalServer } from './local-server.ts';

/**
 * The edges of what send() builds and reads that the client's faster path
 * (a URL parsed once per URL text, the request handed to the dispatcher as
 * origin and path, the body collected without an async iterator, one shared
 * UTF-8 decoder) must keep exactly as they were.
 */
describe('outbound HTTP client: edges of the request and the response', () => {
  let upstream: LocalServer;
  let client: HttpClient;
  before(async () => {
    upstream = await startLocalServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/bom') res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]));
      else if (path === '/latin1') res.writeHead(200, { 'content-type': 'text/plain; charset=ISO-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      else if (path === '/unknown-charset') res.writeHead(200, { 'content-type': 'text/plain; charset="x-nonsense"' }).end('plain');
      else if (path === '/bad-utf8') res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from([0x61, 0xff, 0x62]));
      else if (path === '/vendor-json') res.writeHead(200, { 'content-type': 'Application/Vnd.Api+JSON ; charset=utf-8' }).end('{"data":[]}');
      else if (path === '/twice') {
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.setHeader('x-many', ['one', 'two']);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } else if (path === '/chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('a'.repeat(60));
        setTimeout(() => res.end('b'.repeat(40)), 5);
      } else if (path === '/cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '50' });
        res.write('{"partial":');
        setTimeout(() => res.socket?.destroy(), 5);
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32')), settings: { maxResponseBytes: 100 } });
  });
  after(async () => {
    await client.close();
    await upstream.close();
  });

  describe('the URL sent', () => {
    it('re-encodes the query the URL has when parameters are added, as URLSearchParams writes it', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/q?a=b c&x=%7E`, query: { more: 'é&=' } });
      expect(upstream.requests.at(-1)!.url).to.equal('/q?a=b+c&x=%7E&more=%C3%A9%26%3D');
      expect(response.url).to.equal(`${upstream.url}/q?a=b+c&x=%7E&more=%C3%A9%26%3D`);
    });

    it('leaves the URL as written when every parameter is null or undefined, and sends no fragment', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/q?a=b c#frag`, query: { gone: null, also: undefined } });
      expect(upstream.requests.at(-1)!.url).to.equal('/q?a=b%20c');
      expect(response.url).to.equal(`${upstream.url}/q?a=b%20c#frag`);
    });

    it('appends to a URL with a fragment before the fragment, and to one without a query', async () => {
      const withHash = await client.send({ method: 'GET', url: `${upstream.url}/h#top`, query: { n: 1, flag: false } });
      expect(upstream.requests.at(-1)!.url).to.equal('/h?n=1&flag=false');
      expect(withHash.url).to.equal(`${upstream.url}/h?n=1&flag=false#top`);
    });

    it('normalises the path as a URL parser does (dot segments, spaces)', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/a/../b c/./d` });
      expect(upstream.requests.at(-1)!.url).to.equal('/b%20c/d');
      expect(response.url).to.equal(`${upstream.url}/b%20c/d`);
    });

    it('sends the same URL text twice the same way (a parsed URL is not changed by a call)', async () => {
      const url = `${upstream.url}/same?k=v`;
      await client.send({ method: 'GET', url, query: { page: 2 } });
      await client.send({ method: 'GET', url });
      expect(upstream.requests.slice(-2).map((r) => r.url)).to.deep.equal(['/same?k=v&page=2', '/same?k=v']);
    });

    it('refuses a URL that is not absolute, or not http(s), as EGRESS_DENIED before anything is sent', async () => {
      const before = upstream.requests.length;
      for (const url of ['/relative', 'not a url', 'ftp://127.0.0.1/x', 'file:///etc/passwd']) {
        try {
          await client.send({ method: 'GET', url });
          expect.fail(`expected EGRESS_DENIED for ${url}`);
        } catch (error) {
          expect(error, url).to.be.instanceOf(EgressDeniedError);
          expect((error as GatewayError).code).to.equal('EGRESS_DENIED');
        }
      }
      expect(upstream.requests.length).to.equal(before);
    });

    it('refuses a header name that is not a token as VALIDATION_ERROR, and a NUL in a value', async () => {
      for (const headers of [{ 'bad name': 'x' }, { 'x-ok': 'a\0b' }] as Record<string, string>[]) {
        try {
          await client.send({ method: 'GET', url: upstream.url, headers });
          expect.fail('expected VALIDATION_ERROR');
        } catch (error) {
          expect((error as GatewayError).code).to.equal('VALIDATION_ERROR');
        }
      }
    });

    it('lower-cases header names (a later duplicate by case wins) and keeps a given Accept-Encoding and User-Agent', async () => {
      await client.send({ method: 'GET', url: `${upstream.url}/hdr`, headers: { 'X-Dup': 'first', 'x-dup': 'second', 'Accept-Encoding': 'identity', 'User-Agent': 'mine/1' } });
      expect(upstream.requests.at(-1)!.headers).to.include({ 'x-dup': 'second', 'accept-encoding': 'identity', 'user-agent': 'mine/1' });
    });
  });

  describe('the response read', () => {
    it('joins repeated headers with ", " under lower-case names', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/twice` });
      expect(response.headers).to.include({ 'set-cookie': 'a=1, b=2', 'x-many': 'one, two' });
    });

    it('drops a UTF-8 byte order mark before parsing JSON', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/bom` });
      expect(response.body).to.deep.equal({ a: 1 });
      expect(response.jsonText).to.equal('{"a":1}');
      expect(response.rawBytes).to.equal(10);
    });

    it('decodes by the charset parameter, falls back to UTF-8 for an unknown one, and replaces invalid UTF-8', async () => {
      expect((await client.send({ method: 'GET', url: `${upstream.url}/latin1` })).body).to.equal('café');
      expect((await client.send({ method: 'GET', url: `${upstream.url}/unknown-charset` })).body).to.equal('plain');
      expect((await client.send({ method: 'GET', url: `${upstream.url}/bad-utf8` })).body).to.equal('a\uFFFDb');
    });

    it('parses any +json type whatever its case and spacing', async () => {
      expect((await client.send({ method: 'GET', url: `${upstream.url}/vendor-json` })).body).to.deep.equal({ data: [] });
    });

    it('reads a streamed body of many chunks up to the limit whole', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/chunked` });
      expect(response.body).to.equal('a'.repeat(60) + 'b'.repeat(40));
      expect(response).to.include({ rawBytes: 100, wireBytes: 100 });
    });

    it('answers a connection cut in the middle of the body as UPSTREAM_UNREACHABLE, naming the host', async () => {
      try {
        await client.send({ method: 'GET', url: `${upstream.url}/cut` });
        expect.fail('expected UPSTREAM_UNREACHABLE');
      } catch (error) {
        expect(error).to.be.instanceOf(OutboundError);
        expect((error as OutboundError).toBody().error).to.deep.include({ code: 'UPSTREAM_UNREACHABLE', message: `127.0.0.1:${upstream.port} closed the connection unexpectedly` });
      }
    });

    it('refuses a streamed body one byte past the limit as RESPONSE_TOO_LARGE', async () => {
      const small = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32')), settings: { maxResponseBytes: 99 } });
      try {
        await small.send({ method: 'GET', url: `${upstream.url}/chunked` });
        expect.fail('expected RESPONSE_TOO_LARGE');
      } catch (error) {
        expect(error).to.be.instanceOf(OutboundError);
        expect((error as OutboundError).code).to.equal('RESPONSE_TOO_LARGE');
      } finally {
        await small.close();
      }
    });
  });
});
