import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { closeUnread } from '../../../engine/http/server/middleware/close-unread.ts';
import { errorEnvelope } from '../../../engine/http/server/middleware/errors.ts';
import { jsonBody } from '../../../engine/http/server/middleware/json-body.ts';
import type { AppState } from '../../../engine/http/server/context.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { rawExchange } from '../../helpers/raw-http.ts';

/**
 * The JSON body reader's edge cases, as a client sees them: the body it
 * reads (echoed back by a handler) or the error it answers. These held when
 * the body was read by co-body (raw-body, iconv-lite, type-is) and hold for
 * the reader that replaced it.
 */
describe('jsonBody: what a request body reads as', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(closeUnread());
    app.use(errorEnvelope(captureLogs().logger));
    app.use(jsonBody());
    app.use((ctx) => {
      ctx.body = { had: ctx.state.body !== undefined, body: ctx.state.body ?? null };
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = async (body: string | Buffer | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }, method = 'POST') => {
    const response = await fetch(`${url}/echo`, { method, headers, ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));
  const raw = (head: string, ...drip: Buffer[]) => rawExchange(url, head, { drip, dripEveryMs: 20, capMs: 3000 });

  it('reads an object and an array', async () => {
    expect(await post('{"a":[1,"é",{"b":null}]}')).to.deep.equal({ status: 200, body: { had: true, body: { a: [1, 'é', { b: null }] } } });
    expect(await post(' \r\n\t[1,2]')).to.deep.equal({ status: 200, body: { had: true, body: [1, 2] } });
  });

  it('strips one leading byte order mark (as iconv-lite did), not two', async () => {
    expect(await post(bytes([0xef, 0xbb, 0xbf], '{"a":1}'))).to.deep.equal({ status: 200, body: { had: true, body: { a: 1 } } });
    expect(await post('{"a":"\uFEFF"}')).to.deep.equal({ status: 200, body: { had: true, body: { a: '\uFEFF' } } });
    const twice = await post(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{}'));
    expect(twice).to.deep.equal({ status: 400, body: { success: false, error: { code: 'INVALID_JSON', message: 'request body is not valid JSON: it does not start with { or [' } } });
  });

  it('decodes UTF-8 split across chunks, and replaces bytes that are not UTF-8 with U+FFFD', async () => {
    const euro = Buffer.from('€');
    const head = 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 14\r\nConnection: close\r\n\r\n';
    const split = await raw(head, bytes('{"a":"', [euro[0]!, euro[1]!]), bytes([euro[2]!], '€"}'));
    expect(split.status).to.equal(200);
    expect(split.body).to.deep.equal({ had: true, body: { a: '€€' } });
    expect(await post(bytes('{"a":"', [0xff, 0x41, 0xe2, 0x82], '","b":"', [0xc3], '"}'))).to.deep.equal({ status: 200, body: { had: true, body: { a: '\uFFFDA\uFFFD', b: '\uFFFD' } } });
  });

  it('takes application/json in any case, with parameters (a charset is not used: UTF-8 always), and any +json type; type-is took a malformed parameter list too', async () => {
    for (const type of ['Application/JSON', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/vnd.api+json', 'application/merge-patch+json', 'application/json;;', 'application/json ; x="y"']) {
      expect(await post('{"a":1}', { 'content-type': type }), type).to.deep.equal({ status: 200, body: { had: true, body: { a: 1 } } });
    }
  });

  it('answers 415 naming any other Content-Type, a malformed one, or none', async () => {
    for (const [type, shown] of [
      ['text/json', 'text/json'],
      ['application/jsonx', 'application/jsonx'],
      ['text/plain; charset=utf-8', 'text/plain; charset=utf-8'],
      ['json', 'json'],
      [undefined, 'no Content-Type'],
    ] as const) {
      const answer = await post(Buffer.from('{"a":1}'), type === undefined ? {} : { 'content-type': type });
      expect(answer, String(type)).to.deep.equal({ status: 415, body: { success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: `request bodies must be application/json (got ${shown})` } } });
    }
  });

  it('treats Content-Length: 0 as no body, whatever the Content-Type, and a body on GET as none', async () => {
    expect(await post('', { 'content-type': 'text/plain' })).to.deep.equal({ status: 200, body: { had: false, body: null } });
    expect(await post(undefined, {})).to.deep.equal({ status: 200, body: { had: false, body: null } });
    const get = await raw('GET /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc');
    expect(get.status).to.equal(200);
    expect(get.body).to.deep.equal({ had: false, body: null });
  });

  it('reads an empty chunked body as {}, and a chunked one as its JSON', async () => {
    const empty = await raw('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n');
    expect(empty.body).to.deep.equal({ had: true, body: {} });
    const chunked = await raw('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n', Buffer.from('3\r\n{"a\r\n'), Buffer.from('4\r\n":2}\r\n0\r\n\r\n'));
    expect(chunked.body).to.deep.equal({ had: true, body: { a: 2 } });
  });

  it('answers 400 INVALID_JSON for white space only, a bare value, malformed JSON, and a __proto__ key said as such', async () => {
    const invalid = (message: string) => ({ status: 400, body: { success: false, error: { code: 'INVALID_JSON', message: `request body is not valid JSON: ${message}` } } });
    expect(await post('  ')).to.deep.equal(invalid('it holds only white space'));
    // Valid JSON of another shape is said as such: "not valid JSON" was untrue of null, a string or a number.
    const notContainer = (what: string) => ({ status: 400, body: { success: false, error: { code: 'INVALID_JSON', message: `request body must be a JSON object or array, not ${what}` } } });
    expect(await post('"text"')).to.deep.equal(notContainer('a string'));
    expect(await post('12')).to.deep.equal(notContainer('a number'));
    expect(await post(' null ')).to.deep.equal(notContainer('null'));
    expect(await post('true')).to.deep.equal(notContainer('a boolean'));
    expect(await post('12 x')).to.deep.equal(invalid('it does not start with { or ['));
    const malformed = await post('{"a":');
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal('INVALID_JSON');
    const proto = { status: 400, body: { success: false, error: { code: 'INVALID_JSON', message: 'request body has a member named "__proto__", which no body may hold (it would set an object\'s prototype): rename or remove it' } } };
    expect(await post('{"a":{"__proto__":{"x":1}}}')).to.deep.equal(proto);
    expect(await post('{"a":{"\\u005f_proto__":{"x":1}}}')).to.deep.equal(proto);
  });

  it('answers 400 VALIDATION_ERROR naming a number too large for a double (JSON.parse made it Infinity, stored as null), and keeps the largest one', async () => {
    const tooLarge = (field: string) => ({
      status: 400,
      body: {
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: `${field}: is a number too large to hold (beyond ±1.7976931348623157e308)`,
          details: { problems: [{ field, rule: 'range', message: 'is a number too large to hold (beyond ±1.7976931348623157e308)' }] },
        },
      },
    });
    expect(await post('{"metadata":{"big":1e400}}')).to.deep.equal(tooLarge('metadata.big'));
    expect(await post('{"a":[1,{"b":[-2E+309]}]}')).to.deep.equal(tooLarge('a[1].b[0]'));
    expect(await post(`[${'9'.repeat(400)}]`)).to.deep.equal(tooLarge('[0]'));
    expect(await post('{"max":1.7976931348623157e308,"tiny":1e-400,"text":"1e400"}')).to.deep.equal({ status: 200, body: { had: true, body: { max: 1.7976931348623157e308, tiny: 0, text: '1e400' } } });
  });

  it('answers 400 VALIDATION_ERROR naming a string or key that is not well-formed Unicode (a lone surrogate escape), which no store keeps as given', async () => {
    const notWellFormed = (field: string, message: string) => ({
      status: 400,
      body: { success: false, error: { code: 'VALIDATION_ERROR', message: `${field}: ${message}`, details: { problems: [{ field, rule: 'wellFormed', message }] } } },
    });
    const value = (surrogate: string) => `must be well-formed Unicode text (a lone surrogate ${surrogate} is not)`;
    const key = (surrogate: string) => `must be a key of well-formed Unicode text (a lone surrogate ${surrogate} is not)`;
    // A value, at the top and nested in objects and arrays; either half of a pair alone, in either case, within text.
    expect(await post('{"name":"\\ud800"}')).to.deep.equal(notWellFormed('name', value('\\ud800')));
    expect(await post('{"metadata":{"a":"\\ud800"}}')).to.deep.equal(notWellFormed('metadata.a', value('\\ud800')));
    expect(await post('{"a":[1,{"b":["ok","x\\uDC00y"]}]}')).to.deep.equal(notWellFormed('a[1].b[1]', value('\\udc00')));
    expect(await post('{"externalId":"\\udbffzz1"}')).to.deep.equal(notWellFormed('externalId', value('\\udbff')));
    expect(await post('{"a":"\\ude00\\ud83d"}')).to.deep.equal(notWellFormed('a', value('\\ude00')));
    expect(await post('["\\ud800"]')).to.deep.equal(notWellFormed('[0]', value('\\ud800')));
    // A key: named by its path, the surrogate written as an escape.
    expect(await post('{"\\ud800":1}')).to.deep.equal(notWellFormed('\\ud800', key('\\ud800')));
    expect(await post('{"metadata":{"x\\udfffy":"ok"}}')).to.deep.equal(notWellFormed('metadata.x\\udfffy', key('\\udfff')));
    // The first in the document is named.
    expect(await post('{"a":{"b":"\\ud800"},"\\udc00":1}')).to.deep.equal(notWellFormed('a.b', value('\\ud800')));
  });

  it('takes well-formed text written with escapes: a surrogate pair (an emoji), U+FFFD, and a backslash before "ud800"', async () => {
    expect(await post('{"a":"\\ud83d\\ude00","\\uD83D\\uDE00":"x\\uFFFDy","c":"\\\\ud800"}')).to.deep.equal({
      status: 200,
      body: { had: true, body: { a: '😀', '😀': 'x\uFFFDy', c: '\\ud800' } },
    });
  });

  it('answers 413 for a chunked body over 1 MiB (no Content-Length to refuse it by) and closes the connection', async () => {
    const chunk = Buffer.from(`${(256 * 1024).toString(16)}\r\n${'x'.repeat(256 * 1024)}\r\n`);
    const answer = await raw('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', chunk, chunk, chunk, chunk, chunk, chunk, chunk);
    expect(answer.status).to.equal(413);
    expect(answer.body.error).to.deep.equal({ code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the limit of 1048576 bytes' });
    expect(answer.headers.connection).to.equal('close');
  });

  it('reads a body whose Content-Encoding is identity in another case or listed twice as it is (co-body answered 500 for these)', async () => {
    for (const encoding of ['Identity', 'identity, identity', 'IDENTITY']) {
      expect(await post('{"a":1}', { 'content-type': 'application/json', 'content-encoding': encoding }), encoding).to.deep.equal({ status: 200, body: { had: true, body: { a: 1 } } });
    }
  });

  it('answers 413 at once for a Content-Length over 1 MiB, before the body comes, and closes the connection', async () => {
    const answer = await raw('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048577\r\n\r\n');
    expect(answer.status).to.equal(413);
    expect(answer.body.error).to.deep.equal({ code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the limit of 1048576 bytes' });
    expect(answer.closed).to.equal(true);
  });

  it('takes a body of exactly 1 MiB', async () => {
    const body = `{"a":"${'x'.repeat(1024 * 1024 - 8)}"}`;
    expect(Buffer.byteLength(body)).to.equal(1024 * 1024);
    const answer = await post(body);
    expect(answer.status).to.equal(200);
    expect(answer.body.body.a).to.have.length(1024 * 1024 - 8);
  });
});
