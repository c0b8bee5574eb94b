import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');
const FILES_KEY = 'files-key-0123456789';

describe('the proxy: /v2/proxy/{connectionId}/{path} with the API key', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  /** Another host on 127.0.0.1 that no proxied request may ever reach. */
  const elsewhere = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let files: string;

  const connect = async (appSlug: string, credentials: Record<string, unknown>, metadata?: Record<string, unknown>) =>
    (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials, ...(metadata ? { metadata } : {}) } })).body.data.id as string;

  before(async () => {
    await upstream.start();
    await elsewhere.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    files = await connect('files', { apiKey: FILES_KEY });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await elsewhere.stop();
    await cleanup();
  });
  afterEach(() => {
    expect(elsewhere.received, 'a request reached another host').to.deep.equal([]);
    upstream.reset();
  });

  describe('every method', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      it(`${method}: sends the path and query under the base URL with the connection's auth, and answers the app's status, headers and body as they came`, async () => {
        upstream.on(`${method} /files/v1/folders/f%201/items`, (req) => ({
          status: method === 'POST' ? 201 : 200,
          headers: { 'content-type': 'application/json', etag: '"v7"', link: '<https://files.example/next>; rel="next"' },
          body: { method: req.method, query: Object.fromEntries(req.query), body: req.body },
        }));
        const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify({ name: 'report.pdf' });
        const answer = await send(gw, method, `/v2/proxy/${files}/folders/f%201/items?limit=2&tag=a&tag=b`, {
          headers: body ? { 'content-type': 'application/json' } : {},
          ...(body ? { body } : {}),
        });
        expect(answer.status).to.equal(method === 'POST' ? 201 : 200);
        expect(answer.body).to.deep.equal({ method, query: { limit: '2', tag: 'b' }, body: body ?? '' });
        expect(answer.headers).to.include({ 'content-type': 'application/json', etag: '"v7"', link: '<https://files.example/next>; rel="next"' });
        expect(answer.headers['proxy-status']).to.equal(`integration-gateway; received-status=${answer.status}`);
        const [seen] = upstream.calls(`${method} /files/v1/folders/f%201/items`);
        expect(seen!.headers['x-api-key']).to.equal(FILES_KEY);
        expect(seen!.query.getAll('tag')).to.deep.equal(['a', 'b']);
      });
    }

    it("reaches the app's base URL itself: /v2/proxy/{connectionId} and /v2/proxy/{connectionId}/ send an empty path, with the query and the auth; held to api.yaml's proxy.paths", async () => {
      upstream.on('GET /files/v1/', (req) => ({ headers: { 'content-type': 'application/json' }, body: { root: true, query: Object.fromEntries(req.query) } }));
      upstream.on('POST /files/v1/', (req) => ({ status: 201, headers: { 'content-type': 'application/json' }, body: { posted: req.body } }));
      for (const path of [`/v2/proxy/${files}`, `/v2/proxy/${files}/`]) {
        const answer = await send(gw, 'GET', `${path}?page=2`);
        expect(answer.status, path).to.equal(200);
        expect(answer.body, path).to.deep.equal({ root: true, query: { page: '2' } });
        expect(answer.headers['proxy-status']).to.equal('integration-gateway; received-status=200');
      }
      const posted = await send(gw, 'POST', `/v2/proxy/${files}`, { headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(posted.status).to.equal(201);
      expect(posted.body).to.deep.equal({ posted: 'hello' });
      expect(upstream.calls('GET /files/v1/').map((seen) => seen.headers['x-api-key'])).to.deep.equal([FILES_KEY, FILES_KEY]);
      upstream.reset();
      const limited = await connect('limited', { user: 'ada', password: 'pw-123456' });
      const refused = await send(gw, 'GET', `/v2/proxy/${limited}`);
      expect(refused.status).to.equal(403);
      expect(refused.body.error.code).to.equal('PROXY_PATH_NOT_ALLOWED');
      expect(refused.body.error.message).to.match(/not on \/$/);
      expect(upstream.received).to.deep.equal([]);
    });

    it("HEAD: answers the app's status and headers, Content-Length included, and no body", async () => {
      upstream.on('HEAD /files/v1/files/big.bin', () => ({ headers: { 'content-type': 'application/octet-stream', 'content-length': '52428800' } }));
      const answer = await send(gw, 'HEAD', `/v2/proxy/${files}/files/big.bin`);
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-length']).to.equal('52428800');
      expect(answer.text).to.equal('');
      expect(upstream.calls('HEAD /files/v1/files/big.bin')[0]!.headers['x-api-key']).to.equal(FILES_KEY);
    });

    it("answers an app's error status as it came (a 404 of the app is the app's, with Proxy-Status)", async () => {
      upstream.on('GET /files/v1/missing', () => ({ status: 404, body: { message: 'no such file' } }));
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/missing`);
      expect(answer.status).to.equal(404);
      expect(answer.body).to.deep.equal({ message: 'no such file' });
      expect(answer.headers['proxy-status']).to.equal('integration-gateway; received-status=404');
    });
  });

  describe('headers', () => {
    it('forwards Accept, Content-Type, the If-* conditionals, the headers api.yaml lists and its fixed headers; never the caller\'s credentials, cookies, host or anything else', async () => {
      upstream.on('POST /files/v1/upload', () => ({ body: {} }));
      await send(gw, 'POST', `/v2/proxy/${files}/upload`, {
        headers: {
          accept: 'application/vnd.files+json',
          'content-type': 'text/csv',
          'if-match': '"v6"',
          'if-none-match': '"v5"',
          'idempotency-key': 'k-1',
          'x-api-version': '2025-06',
          'x-tenant': 'someone-else',
          'x-api-key': 'the-callers-own-key',
          cookie: 'session=abc',
          'x-forwarded-for': '10.0.0.1',
          'x-custom': 'not listed',
          connection: 'keep-alive, x-hop',
          'x-hop': 'named by Connection',
          'proxy-authorization': 'Basic eA==',
        },
        body: 'a,b\n1,2\n',
      });
      const [seen] = upstream.calls('POST /files/v1/upload');
      const h = seen!.headers;
      expect(h).to.include({ accept: 'application/vnd.files+json', 'content-type': 'text/csv', 'if-match': '"v6"', 'if-none-match': '"v5"', 'idempotency-key': 'k-1' });
      expect(h['x-api-version'], "api.yaml's fixed header, replaced by the caller's").to.equal('2025-06');
      expect(h['x-tenant'], "api.yaml's header filled from the connection stays the connection's").to.equal('main');
      expect(h['x-api-key'], 'the auth sets it, the caller never').to.equal(FILES_KEY);
      expect(h.authorization).to.equal(undefined);
      for (const name of ['cookie', 'x-forwarded-for', 'x-custom', 'x-hop', 'proxy-authorization']) expect(h[name], name).to.equal(undefined);
      expect(h.host).to.equal(new URL(upstream.url).host);
      expect(seen!.body).to.equal('a,b\n1,2\n');
    });

    it("passes the app's headers back less hop-by-hop ones, Set-Cookie, CORS, HSTS, Alt-Svc and Clear-Site-Data", async () => {
      upstream.on('GET /files/v1/h', () => ({
        headers: {
          'content-type': 'text/plain',
          'set-cookie': 'tracking=1',
          // Would wipe the gateway origin's storage in a browser (the API docs' key, the Connect page's state) and reload its pages.
          'clear-site-data': '"cache", "storage", "executionContexts"',
          'access-control-allow-origin': '*',
          'strict-transport-security': 'max-age=63072000',
          'alt-svc': 'h3=":443"',
          'x-ratelimit-remaining': '41',
          'cache-control': 'private, max-age=60',
          connection: 'x-app-hop',
          'x-app-hop': 'hop',
        },
        body: 'hello',
      }));
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/h`);
      expect(answer.text).to.equal('hello');
      expect(answer.headers).to.include({ 'x-ratelimit-remaining': '41', 'cache-control': 'private, max-age=60', 'content-type': 'text/plain' });
      for (const name of ['set-cookie', 'access-control-allow-origin', 'strict-transport-security', 'alt-svc', 'clear-site-data', 'x-app-hop']) expect(answer.headers[name], name).to.equal(undefined);
      expect(answer.headers['x-request-id']).to.be.a('string');
    });

    it("answers Vary: Authorization, so an app's Cache-Control: public never lets a shared cache hand one caller's answer to another", async () => {
      upstream.on('GET /files/v1/cached', () => ({ headers: { 'content-type': 'text/plain', 'cache-control': 'public, max-age=600', vary: 'Accept-Encoding' }, body: 'shared?' }));
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/cached`);
      expect(answer.text).to.equal('shared?');
      expect(answer.headers['cache-control']).to.equal('public, max-age=600');
      const vary = String(answer.headers.vary).split(',').map((name) => name.trim().toLowerCase());
      expect(vary, String(answer.headers.vary)).to.include('authorization');
    });

    it("never answers the connection's secret: an app echoing it in its body or a header gets [redacted] in its place", async () => {
      upstream.on('GET /files/v1/echo', (req) => ({
        status: 401,
        headers: { 'x-debug': `key=${req.headers['x-api-key']}` },
        body: { error: `bad key ${req.headers['x-api-key']}`, escaped: JSON.stringify(String(req.headers['x-api-key'])), url: `https://x/?k=${encodeURIComponent(String(req.headers['x-api-key']))}` },
      }));
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/echo`);
      expect(answer.status).to.equal(401);
      expect(answer.text).not.to.include(FILES_KEY);
      expect(answer.body.error).to.equal('bad key [redacted]');
      expect(answer.headers['x-debug']).to.equal('key=[redacted]');
    });

    it('redacts a Basic credential echoed as the app received it (the whole header value, or its base64 alone)', async () => {
      const limited = await connect('limited', { user: 'ada', password: 'correct-horse-battery' });
      upstream.on('GET /limited/api/search', (req) => ({ body: { youSent: req.headers.authorization, base64: String(req.headers.authorization).slice(6), password: 'correct-horse-battery' } }));
      const answer = await send(gw, 'GET', `/v2/proxy/${limited}/search`);
      expect(answer.status).to.equal(200);
      expect(answer.text).not.to.include(Buffer.from('ada:correct-horse-battery').toString('base64'));
      expect(answer.body.base64).to.equal('[redacted]');
      delete answer.body.base64;
      expect(answer.body).to.deep.equal({ youSent: '[redacted]', password: '[redacted]' });
    });

    it("drops a caller's query parameter named as the auth's (the app gets the connection's key only)", async () => {
      const querykey = await connect('querykey', { apiKey: 'query-key-987654' });
      upstream.on('GET /q/ping', (req) => ({ body: { keys: req.query.getAll('api_key'), other: req.query.get('x') } }));
      const answer = await send(gw, 'GET', `/v2/proxy/${querykey}/ping?api_key=mine&x=1&api%5Fkey=also-mine`);
      expect(upstream.calls('GET /q/ping')[0]!.query.getAll('api_key')).to.deep.equal(['query-key-987654']);
      expect(answer.body).to.deep.equal({ keys: ['[redacted]'], other: '1' });
    });
  });

  describe('paths that could leave the app', () => {
    const refusals: [string, string][] = [
      ['../admin', 'dot-segment'],
      ['a/../../admin', 'dot-segment'],
      ['%2e%2e/admin', 'dot-segment'],
      ['.%2E/admin', 'dot-segment'],
      ['./a', 'dot-segment'],
      ['..;/admin', 'dot-segment'],
      ['a/..;jsessionid=1/..;/admin', 'dot-segment'],
      ['%2e%2e%3b/admin', 'dot-segment'],
      ['a%2F..%2F..%2Fadmin', 'encoded-slash'],
      ['a%2f%2e%2e', 'encoded-slash'],
      ['%252e%252e/admin', 'double-encoding'],
      ['/127.0.0.1:1/x', 'empty-segment'],
      ['a//b', 'empty-segment'],
      ['http:%2F%2F127.0.0.1/x', 'scheme'],
      ['javascript:alert(1)', 'scheme'],
      ['evil@127.0.0.1/x', 'at-sign'],
      ['%40127.0.0.1', 'at-sign'],
      ['a\\..\\admin', 'backslash'],
      ['a%5c..%5cadmin', 'backslash'],
      ['a%00b', 'control-character'],
      ['a%0d%0aHost:%20evil', 'control-character'],
      ['a%zz', 'percent-encoding'],
    ];
    for (const [raw, rule] of refusals) {
      it(`refuses ${raw} with 400 naming the rule ${rule}`, async () => {
        const answer = await send(gw, 'GET', `/v2/proxy/${files}/${raw}`);
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal('VALIDATION_ERROR');
        expect(answer.body.error.details.problems).to.deep.equal([{ field: 'path', rule, message: answer.body.error.details.problems[0].message }]);
        expect(answer.body.error.message).to.match(/^path: /);
        expect(upstream.received, 'the app got nothing').to.deep.equal([]);
      });
    }

    it(`a scheme or absolute URL sent whole, as the other server's own address, reaches nothing`, async () => {
      const target = elsewhere.url.replace('http://', '');
      for (const raw of [`http://${target}/x`, `//${target}/x`, `http:/${target}`, `${target}/x`.replace(/^/, '@')]) {
        const answer = await send(gw, 'GET', `/v2/proxy/${files}/${raw}`);
        expect(answer.status, raw).to.equal(400);
      }
      expect(upstream.received).to.deep.equal([]);
    });

    it('lets through what only looks odd: @ past the first segment, : inside, an encoded slash that does not climb, a trailing slash', async () => {
      upstream.on('GET /files/v1/users/@me', () => ({ body: { ok: 1 } }));
      upstream.on('GET /files/v1/projects/p:batchGet', () => ({ body: { ok: 2 } }));
      upstream.on('GET /files/v1/groups/a%2Fb', () => ({ body: { ok: 3 } }));
      upstream.on('GET /files/v1/dir/', () => ({ body: { ok: 4 } }));
      expect((await send(gw, 'GET', `/v2/proxy/${files}/users/@me`)).body).to.deep.equal({ ok: 1 });
      expect((await send(gw, 'GET', `/v2/proxy/${files}/projects/p:batchGet`)).body).to.deep.equal({ ok: 2 });
      expect((await send(gw, 'GET', `/v2/proxy/${files}/dir/`)).body).to.deep.equal({ ok: 4 });
      // The encoded slash reaches the app as the caller wrote it: one segment, a/b.
      expect((await send(gw, 'GET', `/v2/proxy/${files}/groups/a%2Fb`)).body).to.deep.equal({ ok: 3 });
    });
  });

  describe("api.yaml's proxy rules", () => {
    it('proxy: false is 403 PROXY_DISABLED, nothing sent', async () => {
      const closed = await connect('closed', { user: 'u', password: 'p4ssword' });
      const answer = await send(gw, 'GET', `/v2/proxy/${closed}/anything`);
      expect(answer.status).to.equal(403);
      expect(answer.body.error.code).to.equal('PROXY_DISABLED');
      expect(answer.body.error.message).to.include('proxy: false');
      expect(upstream.received).to.deep.equal([]);
    });

    it('proxy.paths: the listed paths (under a prefix, exactly, by a * prefix) pass; any other is 403 PROXY_PATH_NOT_ALLOWED, nothing sent', async () => {
      const limited = await connect('limited', { user: 'ada', password: 'pw-123456' });
      for (const ok of ['public/a/b', 'search', 'search/deep', 'methods.list']) {
        upstream.on(`GET /limited/api/${ok}`, () => ({ body: { ok } }));
        expect((await send(gw, 'GET', `/v2/proxy/${limited}/${ok}`)).body, ok).to.deep.equal({ ok });
      }
      upstream.reset();
      for (const refused of ['public', 'searching', 'admin/users', 'method']) {
        const answer = await send(gw, 'GET', `/v2/proxy/${limited}/${refused}`);
        expect(answer.status, refused).to.equal(403);
        expect(answer.body.error.code).to.equal('PROXY_PATH_NOT_ALLOWED');
        expect(answer.body.error.message).to.include('/public/, /search, /methods.*');
      }
      expect(upstream.received).to.deep.equal([]);
    });
  });

  describe('the connection', () => {
    it("is 404 when unknown or another company's", async () => {
      expect((await send(gw, 'GET', '/v2/proxy/con_missing/x')).status).to.equal(404);
      const other = await otherTenant(gw.gateway.services.store);
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/x`, { auth: other.apiKey });
      expect(answer.status).to.equal(404);
      expect(answer.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${files} does not exist` });
      expect(upstream.received).to.deep.equal([]);
    });

    it('is 409 CONNECTION_NEEDS_REAUTHORIZATION when it needs authorizing again, as a run answers', async () => {
      const crm = await connect('crm', { accessToken: 'at-1', refreshToken: 'rt-1' });
      await gw.gateway.services.store.connections.updateOne({ id: crm }, { $set: { status: 'needs_reauthorization' } });
      const answer = await send(gw, 'GET', `/v2/proxy/${crm}/contacts`);
      expect(answer.status).to.equal(409);
      expect(answer.body.error.code).to.equal('CONNECTION_NEEDS_REAUTHORIZATION');
      const run = await call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId: crm } });
      expect(run.body.error).to.deep.equal(answer.body.error);
    });

    it('is 400 naming the value the base URL needs when the connection lacks it', async () => {
      const regional = await connect('regional', { token: 'regional-token' });
      const answer = await send(gw, 'GET', `/v2/proxy/${regional}/ping`);
      expect(answer.status).to.equal(400);
      expect(answer.body.error.details.problems).to.deep.equal([{ field: 'connection.region', rule: 'hostVariable', message: 'baseUrl needs {{region}}, which the connection does not set' }]);
      const filled = await connect('regional', { token: 'regional-token' }, { region: 'eu' });
      upstream.on('GET /regions/eu/ping', (req) => ({ body: { auth: req.headers.authorization } }));
      expect((await send(gw, 'GET', `/v2/proxy/${filled}/ping`)).body).to.deep.equal({ auth: '[redacted]' });
      expect(upstream.calls('GET /regions/eu/ping')[0]!.headers.authorization).to.equal('Bearer regional-token');
    });
  });
});
