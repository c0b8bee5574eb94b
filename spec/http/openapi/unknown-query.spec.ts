import { expect } from 'chai';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

/**
 * The lists answered whole (no pagination) take no query parameter, or only
 * `version`: like the paginated ones, they refuse any other with 400 naming
 * it, so `limit=1` is not silently ignored. call() holds each answer to the
 * OpenAPI documents, so each operation must declare its 400 too.
 */
describe('lists answered whole refuse an unknown query parameter', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let webhookId: string;
  let endUser: { url: string; apiKey: string };
  let appSlug: string;

  before(async () => {
    gw = await startTestGateway({ EGRESS_ALLOW: '127.0.0.1/32' });
    webhookId = (await call(gw, 'POST', '/v2/webhooks', { body: { url: 'http://127.0.0.1:9/in', events: ['connection.created'] } })).body.data.id;
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    endUser = { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token };
    appSlug = (await call(gw, 'GET', '/v2/universal/apps')).body.data[0].slug;
  });
  after(async () => {
    await gw?.stop();
  });

  const expectRefused = (answer: { status: number; body: any }, parameter: string) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    expect(answer.body).to.deep.equal({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: `${parameter}: is not a known query parameter`,
        details: { problems: [{ field: parameter, rule: 'additionalProperties', message: 'is not a known query parameter' }] },
      },
    });
  };

  it('GET /v2/webhooks?limit=1', async () => {
    expectRefused(await call(gw, 'GET', '/v2/webhooks?limit=1'), 'limit');
    expect((await call(gw, 'GET', '/v2/webhooks')).status).to.equal(200);
  });

  it('GET /v2/webhooks/{id}/deliveries?limit=1', async () => {
    expectRefused(await call(gw, 'GET', `/v2/webhooks/${webhookId}/deliveries?limit=1`), 'limit');
    expect((await call(gw, 'GET', `/v2/webhooks/${webhookId}/deliveries`)).status).to.equal(200);
  });

  it('GET /v1/users?limit=1', async () => {
    expectRefused(await call(gw, 'GET', '/v1/users?limit=1'), 'limit');
    expect((await call(gw, 'GET', '/v1/users')).status).to.equal(200);
  });

  it('GET /v2/universal/apps?foo=1', async () => {
    expectRefused(await call(gw, 'GET', '/v2/universal/apps?foo=1'), 'foo');
  });

  it('GET /v2/universal/apps/{appSlug}/actions?limt=5, still taking ?version', async () => {
    expectRefused(await call(gw, 'GET', `/v2/universal/apps/${appSlug}/actions?version=published&limt=5`), 'limt');
    expect((await call(gw, 'GET', `/v2/universal/apps/${appSlug}/actions?version=published`)).status).to.equal(200);
  });

  it('GET /v2/end-user/apps?limit=1 (end-user token)', async () => {
    expectRefused(await call(endUser, 'GET', '/v2/end-user/apps?limit=1'), 'limit');
    expect((await call(endUser, 'GET', '/v2/end-user/apps')).status).to.equal(200);
  });
});
