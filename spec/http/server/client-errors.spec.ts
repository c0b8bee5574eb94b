import { expect } from 'chai';
import net from 'node:net';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { rawExchange, type RawAnswer } from '../../helpers/raw-http.ts';

/** What every answer to a request the server could not read looks like: the error shape, on a closed connection. */
function expectErrorAnswer(answer: RawAnswer, status: number, code: string, message: string | RegExp): void {
  expect(answer.status, answer.text.slice(0, 200)).to.equal(status);
  expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(answer.headers.connection).to.equal('close');
  expect(answer.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
  expect(answer.body.success).to.equal(false);
  expect(answer.body.error.code).to.equal(code);
  if (typeof message === 'string') expect(answer.body.error.message).to.equal(message);
  else expect(answer.body.error.message).to.match(message);
  expect(Number(answer.headers['content-length'])).to.equal(Buffer.byteLength(JSON.stringify(answer.body)));
  expect(answer.closed).to.equal(true);
}

describe('requests the server cannot read (the error shape, not a bare status or a reset)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ MAX_HEADER_BYTES: '4096' });
  });
  after(async () => {
    await gw.stop();
  });

  const TOO_LARGE = 'the request line and headers exceed the limit of 4096 bytes';

  it('answers 431 HEADERS_TOO_LARGE for headers over MAX_HEADER_BYTES, and serves them under it', async () => {
    expectErrorAnswer(await rawExchange(gw.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(5000)}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE', TOO_LARGE);
    const under = await rawExchange(gw.url, `GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${'a'.repeat(3000)}\r\n\r\n`);
    expect(under.status).to.equal(200);
    expect(under.body).to.deep.equal({ status: 'ok' });
  });

  it('answers 431 HEADERS_TOO_LARGE for a request line over the limit (it counts with the headers)', async () => {
    expectErrorAnswer(await rawExchange(gw.url, `GET /health?${'a'.repeat(5000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, 'HEADERS_TOO_LARGE', TOO_LARGE);
  });

  it('answers 400 BAD_REQUEST for something that is not HTTP', async () => {
    expectErrorAnswer(await rawExchange(gw.url, 'HELLO / WORLD\r\n\r\n'), 400, 'BAD_REQUEST', /^the request is not valid HTTP\/1\.1: .+/);
  });

  it('answers 400 BAD_REQUEST naming the rule to an HTTP/1.1 request without a Host header, logged as a request with its X-Request-Id', async () => {
    const answer = await rawExchange(gw.url, 'GET /health HTTP/1.1\r\n\r\n');
    expectErrorAnswer(answer, 400, 'BAD_REQUEST', 'an HTTP/1.1 request must have a Host header');
    const lines = gw
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.reqId === answer.headers['x-request-id']);
    expect(lines.map((line) => [line.msg, line.method, line.path, line.status])).to.deep.include(['request', 'GET', '/health', 400]);
  });

  it('answers 400 BAD_REQUEST to a Host header that is empty or not a host (an http URI must name one, RFC 9110, section 4.2.1)', async () => {
    for (const [host, version] of [['', '1.1'], ['', '1.0'], ['a b', '1.1'], ['x/y', '1.1'], ['x@y', '1.1'], ['[::1', '1.1'], ['x:80a', '1.1']]) {
      expectErrorAnswer(await rawExchange(gw.url, `GET /health HTTP/${version}\r\nHost: ${host}\r\n\r\n`), 400, 'BAD_REQUEST', `the Host header must be a host with an optional port (RFC 9110, section 7.2), not ${JSON.stringify(host)}`);
    }
  });

  it('answers 400 BAD_REQUEST to a request with two Host headers (RFC 9112, section 3.2), which Node would serve by the first', async () => {
    expectErrorAnswer(await rawExchange(gw.url, 'GET /health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n'), 400, 'BAD_REQUEST', 'a request must have one Host header, not 2');
  });

  it('serves the hosts a client may send: a name, an IPv4 or IPv6 address, each with or without a port', async () => {
    for (const host of ['x', 'gateway.example.com', 'gateway.example.com:8080', '127.0.0.1:80', '[::1]', '[::1]:8080', 'xn--bcher-kva.example', 'GATEWAY.EXAMPLE.']) {
      const answer = await rawExchange(gw.url, `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(answer.status, `${host}: ${answer.text.slice(0, 200)}`).to.equal(200);
    }
  });

  it('serves an HTTP/1.0 request without a Host header (HTTP/1.0 has no Host rule)', async () => {
    const answer = await rawExchange(gw.url, 'GET /health HTTP/1.0\r\n\r\n');
    expect(answer.status, answer.text.slice(0, 200)).to.equal(200);
    expect(answer.body).to.deep.equal({ status: 'ok' });
  });

  it('answers 405 METHOD_NOT_ALLOWED to CONNECT (the gateway is no tunnel), not a dropped connection', async () => {
    for (const target of ['127.0.0.1:9', '/v2/proxy/con_1/x']) {
      expectErrorAnswer(await rawExchange(gw.url, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`), 405, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported: the gateway is no tunnel (the proxy forwards GET, HEAD, POST, PUT, PATCH and DELETE)');
    }
  });

  it('answers 400 BAD_REQUEST for a malformed chunked body', async () => {
    const head = 'POST /v1/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n';
    expectErrorAnswer(await rawExchange(gw.url, head), 400, 'BAD_REQUEST', /^the request is not valid HTTP\/1\.1: .+/);
  });

  it('answers a malformed request that follows an answered one on the same connection', async () => {
    const socket = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
    let text = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      // The second request goes once the first is answered, as a client would send it.
      if (text.endsWith('{"status":"ok"}') && !text.includes('HTTP/1.1 400')) socket.write('HELLO / WORLD\r\n\r\n');
    });
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    expect(text).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    const second = text.slice(text.indexOf('HTTP/1.1', 10));
    expect(second).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(second).to.include('"code":"BAD_REQUEST"');
  });

  it('logs each one with its status and code', async () => {
    await rawExchange(gw.url, 'HELLO / WORLD\r\n\r\n');
    await rawExchange(gw.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(5000)}\r\n\r\n`);
    const lines = gw
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'request not readable');
    expect(lines.some((line) => line.status === 400 && line.code === 'BAD_REQUEST' && typeof line.reqId === 'string')).to.equal(true);
    expect(lines.some((line) => line.status === 431 && line.code === 'HEADERS_TOO_LARGE')).to.equal(true);
  });
});
