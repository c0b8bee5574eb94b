import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

describe('end users try credentials a bounded number of times a minute (END_USER_CONNECT_ATTEMPTS_PER_MINUTE)', () => {
  let gw: TestGateway;
  const sessionOf = async (externalId: string) => {
    const id = (await call(gw, 'POST', '/v1/users', { body: { externalId } })).body.data.userId;
    return { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${id}/token`)).body.token as string };
  };
  const attempt = (session: { url: string; apiKey: string }, apiKey: string) =>
    documentedCall(session, 'POST', '/v2/end-user/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey }, metadata: { region: 'eu' } } });

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR, END_USER_CONNECT_ATTEMPTS_PER_MINUTE: '3' });
    expect((await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.customer.test'], enabledApps: ['acme-crm'] } })).status).to.equal(200);
  });
  after(async () => {
    await gw.stop();
  });

  it('answers the fourth attempt of a minute 429 RATE_LIMITED with Retry-After, naming the setting; another end user is not held back', async () => {
    const ada = await sessionOf('ada');
    for (let i = 0; i < 3; i++) expect((await attempt(ada, `key-${i}`)).status, `attempt ${i + 1}`).to.equal(201);
    const refused = await attempt(ada, 'key-3');
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('RATE_LIMITED');
    expect(refused.body.error.message).to.match(/^too many connection attempts: at most 3 a minute for one end user \(END_USER_CONNECT_ATTEMPTS_PER_MINUTE\); try again in \d+ s$/);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).to.be.within(1, 20);
    expect(refused.body.error.details.retryAfterSeconds).to.equal(wait);
    // A reconnect with new credentials is an attempt too.
    const mine = (await call(ada, 'GET', '/v2/end-user/connections')).body.data[0].id;
    expect((await documentedCall(ada, 'PATCH', `/v2/end-user/connections/${mine}`, { body: { credentials: { apiKey: 'key-4' } } })).status).to.equal(429);
    const bob = await sessionOf('bob');
    expect((await attempt(bob, 'key-b')).status).to.equal(201);
  });
});
