import { expect } from 'chai';
import path from 'node:path';
import { MIN_REDACTED_LENGTH } from '../../../engine/platform/secrets/redact.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');

/**
 * As for runs (docs/outbound.md): a connection's value shorter than
 * MIN_REDACTED_LENGTH (a Basic user name such as `user`) is not looked for in
 * the app's answer, which it would destroy wherever the word occurs (a JSON
 * key, `user-agent`), protecting nothing.
 */
describe(`the proxy: a connection's value shorter than ${MIN_REDACTED_LENGTH} characters is left in the app's answer`, function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let limited: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    limited = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'limited', credentials: { user: 'user', password: 'correct-horse-9' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  it('answers the body and headers as they came, the long password still [redacted]', async () => {
    upstream.on('GET /limited/api/search', () => ({
      headers: { 'x-user-count': '2 users' },
      body: { user: { name: 'ada', userAgent: 'curl' }, users: 2, echo: 'password=correct-horse-9' },
    }));
    const answer = await send(gw, 'GET', `/v2/proxy/${limited}/search?q=user`);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ user: { name: 'ada', userAgent: 'curl' }, users: 2, echo: 'password=[redacted]' });
    expect(answer.headers['x-user-count']).to.equal('2 users');
  });
});
