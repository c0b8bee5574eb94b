import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');
const FILES_KEY = 'files-key-0123456789';

/**
 * The app's redirects: followed as for runs, but back into the app only
 * where a caller's own path could go (under the base URL, within api.yaml's
 * proxy.paths): an app's open redirect (`?next=/admin`) must not take the
 * connection's credentials where the proxy refuses to.
 */
describe("the proxy: the app's redirects", function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  /** Another origin on 127.0.0.1. */
  const elsewhere = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let files: string;
  let limited: string;

  before(async () => {
    await upstream.start();
    await elsewhere.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    files = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey: FILES_KEY } } })).body.data.id;
    limited = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'limited', credentials: { user: 'ada', password: 'pw-123456789' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await elsewhere.stop();
    await cleanup();
  });
  afterEach(() => {
    upstream.reset();
    elsewhere.reset();
  });

  it('follows one within the paths the proxy allows, with the credentials', async () => {
    upstream.on('GET /limited/api/public/old', () => ({ status: 301, headers: { location: '/limited/api/public/new' } }));
    upstream.on('GET /limited/api/public/new', () => ({ body: { moved: true } }));
    const answer = await send(gw, 'GET', `/v2/proxy/${limited}/public/old`);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ moved: true });
    expect(upstream.calls('GET /limited/api/public/new')[0]!.headers.authorization).to.match(/^Basic /);
  });

  it('follows one to the base URL itself, with or without its trailing slash', async () => {
    upstream.on('GET /files/v1/home', () => ({ status: 301, headers: { location: '/files/v1' } }));
    upstream.on('GET /files/v1', () => ({ status: 301, headers: { location: '/files/v1/' } }));
    upstream.on('GET /files/v1/', () => ({ body: { root: true } }));
    const answer = await send(gw, 'GET', `/v2/proxy/${files}/home`);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ root: true });
  });

  it("answers, as it came, one back into the app outside api.yaml's proxy.paths: nothing is sent there", async () => {
    upstream.on('GET /limited/api/public/next', () => ({ status: 302, headers: { location: '/limited/api/admin/users' } }));
    upstream.on('GET /limited/api/admin/users', () => ({ body: { users: ['everyone'] } }));
    const answer = await send(gw, 'GET', `/v2/proxy/${limited}/public/next`);
    expect(answer.status).to.equal(302);
    expect(answer.headers.location).to.equal('/limited/api/admin/users');
    expect(answer.headers['proxy-status']).to.equal('integration-gateway; received-status=302');
    expect(upstream.calls('GET /limited/api/admin/users')).to.deep.equal([]);
  });

  for (const [where, location] of [
    ['outside the base path', '/internal/keys'],
    ['by an absolute URL outside the base path', 'ORIGIN/internal/keys'],
    ['under the base path by an encoded climb', '/files/v1/a%2F..%2F..%2Finternal/keys'],
  ] as const) {
    it(`answers, as it came, one back into the app ${where}: nothing is sent there`, async () => {
      const target = location.replace('ORIGIN', upstream.url);
      upstream.on('GET /files/v1/go', () => ({ status: 307, headers: { location: target } }));
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/go`);
      expect(answer.status).to.equal(307);
      expect(answer.headers.location).to.equal(target);
      expect(upstream.received.map((seen) => seen.path)).to.deep.equal(['/files/v1/go']);
    });
  }

  it('follows one to another origin without the credentials', async () => {
    upstream.on('GET /files/v1/download', () => ({ status: 302, headers: { location: `${elsewhere.url}/blob/1` } }));
    elsewhere.on('GET /blob/1', () => ({ headers: { 'content-type': 'text/plain' }, body: 'the file' }));
    const answer = await send(gw, 'GET', `/v2/proxy/${files}/download`);
    expect(answer.status).to.equal(200);
    expect(answer.text).to.equal('the file');
    expect(elsewhere.calls('GET /blob/1')[0]!.headers['x-api-key']).to.equal(undefined);
  });
});
