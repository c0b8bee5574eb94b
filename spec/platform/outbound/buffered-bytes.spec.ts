import { expect } from 'chai';
import zlib from 'node:zlib';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy } from '../../../engine/platform/egress/policy.ts';
import { bufferedBytes } from '../../../engine/platform/outbound/buffered-bytes.ts';
import { createHttpClient, type HttpClient } from '../../../engine/platform/outbound/client.ts';
import { OutboundError } from '../../../engine/platform/outbound/outbound-error.ts';
import { startLocalServer, type LocalServer } from './local-server.ts';

const LOCAL = createEgressPolicy(parseEgressAllow('127.0.0.1/32'));

describe('the response bytes all calls read at once (OUTBOUND_MAX_BUFFERED_BYTES)', function () {
  this.timeout(20_000);
  let upstream: LocalServer;
  let client: HttpClient;
  /** Responses of 60 KB: the first half at once, the second when the test says (and the end after it). */
  let finish: (() => void)[] = [];

  before(async () => {
    upstream = await startLocalServer((req, res) => {
      const gzip = req.url?.includes('gzip');
      const half = Buffer.alloc(30_000, 'a');
      res.writeHead(200, { 'content-type': 'text/plain', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      if (gzip) {
        // Decoded bytes count: 120 KB that compress to almost nothing.
        res.end(zlib.gzipSync(Buffer.alloc(120_000, 'b')));
        return;
      }
      res.write(half);
      finish.push(() => res.write(half, () => setTimeout(() => res.end(), 50)));
    });
    client = createHttpClient({ policy: LOCAL, settings: { maxBufferedBytes: 100_000 } });
  });
  after(async () => {
    await client.close();
    await upstream.close();
  });

  it('fails a call whose response would go past them with 503 UPSTREAM_BUSY (Retry-After 1), while the others read on', async () => {
    finish = [];
    const first = client.send({ method: 'GET', url: `${upstream.url}/a` });
    const second = client.send({ method: 'GET', url: `${upstream.url}/b` });
    while (finish.length < 2 || bufferedBytes() < 60_000) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const more of finish) more(); // both reach 60 KB before either ends: 120 KB together, past 100 KB
    const outcomes = await Promise.allSettled([first, second]);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as OutboundError);
    const read = outcomes.filter((o) => o.status === 'fulfilled');
    expect(read).to.have.length(1);
    expect(refused).to.have.length(1);
    expect(refused[0]).to.be.instanceOf(OutboundError);
    expect(refused[0]).to.include({ code: 'UPSTREAM_BUSY', status: 503 });
    expect(refused[0]!.details).to.include({ limit: 100_000, setting: 'OUTBOUND_MAX_BUFFERED_BYTES', retryAfterSeconds: 1 });
    expect(refused[0]!.message).to.match(/^the gateway is reading 100000 bytes of responses at once \(OUTBOUND_MAX_BUFFERED_BYTES\), the most it holds; the response from 127\.0\.0\.1:\d+ was not read, try again in 1 s$/);
    expect(bufferedBytes(), 'every read lets its bytes go').to.equal(0);
  });

  it('counts decoded bytes of a compressed response', async () => {
    const error = await client.send({ method: 'GET', url: `${upstream.url}/gzip` }).catch((e: unknown) => e);
    expect(error).to.include({ code: 'UPSTREAM_BUSY' });
    expect(bufferedBytes()).to.equal(0);
  });

  it('reads calls one after another whatever they add up to', async () => {
    for (let i = 0; i < 3; i++) {
      finish = [];
      const call = client.send({ method: 'GET', url: `${upstream.url}/c${i}` });
      while (finish.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      finish[0]!();
      expect((await call).rawBytes).to.equal(60_000);
    }
    expect(bufferedBytes()).to.equal(0);
  });
});
