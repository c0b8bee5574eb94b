import { expect } from 'chai';
import net from 'node:net';
import zlib from 'node:zlib';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { rawExchange } from '../../helpers/raw-http.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';

const ACCEPTED = 'accepted: gzip, deflate, br, identity';

describe('request bodies with a Content-Encoding', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.stop();
  });

  const post = (body: Buffer | string, encoding: string, auth: string | null = null) =>
    fetch(`${gw.url}/v1/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding, ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body,
    }).then(async (response) => {
      const answer = { status: response.status, headers: response.headers, body: (await response.json()) as any };
      expectDocumentedIfDescribed('POST', '/v1/users', answer);
      return answer;
    });

  it('reads gzip, deflate and br JSON bodies as the JSON they encode', async () => {
    const json = JSON.stringify({ name: 'Zipped' });
    for (const [encoding, encoded] of [
      ['gzip', zlib.gzipSync(json)],
      ['deflate', zlib.deflateSync(json)],
      ['br', zlib.brotliCompressSync(json)],
      ['GZip', zlib.gzipSync(json)],
      ['x-gzip', zlib.gzipSync(json)],
      ['identity', Buffer.from(json)],
    ] as const) {
      const { status, body } = await post(encoded, encoding, gw.apiKey);
      expect(status, encoding).to.equal(200);
      expect(body.data.userId, encoding).to.be.a('string');
    }
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE naming an unknown coding and the accepted ones, before authentication', async () => {
    const { status, body } = await post('{"name":"x"}', 'compress');
    expect(status).to.equal(415);
    expect(body).to.deep.equal({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: `Content-Encoding "compress" is not supported (${ACCEPTED})` } });
  });

  it('answers 415 for more than one coding', async () => {
    const { status, body } = await post(zlib.gzipSync(zlib.gzipSync('{}')), 'gzip, gzip');
    expect(status).to.equal(415);
    expect(body.error).to.deep.equal({ code: 'UNSUPPORTED_MEDIA_TYPE', message: `Content-Encoding "gzip, gzip" is not supported: one coding at most (${ACCEPTED})` });
  });

  it('answers 400 INVALID_BODY_ENCODING for a body that does not decode, naming the coding, before authentication', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const { status, body } = await post('{"name":"plain JSON"}', encoding);
      expect(status, encoding).to.equal(400);
      expect(body.success).to.equal(false);
      expect(body.error.code, encoding).to.equal('INVALID_BODY_ENCODING');
      expect(body.error.message, encoding).to.match(new RegExp(`^request body is not valid ${encoding} data \\(Content-Encoding: ${encoding}\\)`));
    }
    const truncated = zlib.gzipSync(JSON.stringify({ name: 'x'.repeat(1000) })).subarray(0, 5);
    const { status, body } = await post(truncated, 'gzip');
    expect(status).to.equal(400);
    expect(body.error.code).to.equal('INVALID_BODY_ENCODING');
  });

  it('still answers INVALID_JSON for a body that decodes to something that is not JSON', async () => {
    const { status, body } = await post(zlib.gzipSync('{"name": '), 'gzip', gw.apiKey);
    expect(status).to.equal(400);
    expect(body.error.code).to.equal('INVALID_JSON');
  });

  it('applies the 1 MiB limit to the decoded size: a gzip bomb is 413', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024), { level: 9 });
    expect(bomb.length).to.be.below(20 * 1024);
    const { status, body } = await post(bomb, 'gzip');
    expect(status).to.equal(413);
    expect(body.error).to.deep.equal({ code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the limit of 1048576 bytes (decoded)' });
  });

  it('stops decoding at the limit: a bomb is answered 413 before the rest of it is sent, and the connection closed', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024), { level: 9 });
    const head = `POST /v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`;
    // 20 KB of the ~50 KB decode to ~20 MB; the rest never comes.
    const answer = await rawExchange(gw.url, Buffer.concat([Buffer.from(head), bomb.subarray(0, 20 * 1024)]), { capMs: 5000 });
    expect(answer.status).to.equal(413);
    expect(answer.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(answer.headers.connection).to.equal('close');
    expect(answer.closed).to.equal(true);
  });

  it('counts the body as sent too: gzip that decodes to nothing is cut at 1 MiB received, not read for as long as it comes', async () => {
    // A gzip header, then empty stored deflate blocks (5 bytes each, no output): 1.5 MB sent of 10 MB announced.
    const emptyBlocks = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]), Buffer.alloc(300_000 * 5, Buffer.from([0, 0, 0, 0xff, 0xff]))]);
    const head = `POST /v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`;
    const answer = await rawExchange(gw.url, Buffer.concat([Buffer.from(head), emptyBlocks]), { capMs: 5000 });
    expect(answer.status, answer.text.slice(0, 200)).to.equal(413);
    expect(answer.body.error).to.deep.equal({ code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the limit of 1048576 bytes (as sent)' });
    expect(answer.closed).to.equal(true);
  });

  it('ends the request when the client hangs up in the middle of an encoded body (not left waiting)', async () => {
    const partial = zlib.gzipSync(JSON.stringify({ name: 'x'.repeat(100_000) })).subarray(0, 200);
    const head = `POST /v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: gzip-hang-up\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 100000\r\n\r\n`;
    const socket = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(Buffer.concat([Buffer.from(head), partial]));
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const logged = () => gw.logs().split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((line) => line.reqId === 'gzip-hang-up' && line.msg === 'request');
    for (let i = 0; i < 100 && !logged(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged()?.status).to.equal(499);
  });

  it('answers an identity body over 1 MiB with 413 and closes the connection', async () => {
    const { status, headers, body } = await call(gw, 'POST', '/v1/users', { body: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }) });
    expect(status).to.equal(413);
    expect(body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(headers.get('connection')).to.equal('close');
  });
});
