import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';

/**
 * A token put in the query string (?access_token=, ?token=: what some clients do, an EventSource, a link) with
 * no Authorization header: the request has no credential the gateway takes, so it is a 401 that says where the
 * token goes, not a 400 "token: is not a known query parameter" that reads as if a parameter were misspelt.
 * With an Authorization header the parameter is just unknown (400, as before). The token is never logged.
 */
describe('a token in the query string is a 401 saying the token goes in the Authorization header', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let endUserToken: string;

  before(async () => {
    gw = await startTestGateway({});
    const headers = { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' };
    const userId = ((await (await fetch(`${gw.url}/v1/users`, { method: 'POST', headers, body: JSON.stringify({ externalId: 'ada' }) })).json()) as any).data.userId as string;
    endUserToken = ((await (await fetch(`${gw.url}/v1/users/${userId}/token`, { headers })).json()) as any).token as string;
  });
  after(async () => {
    await gw?.stop();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${gw.url}${path}`, { headers });
    return { status: response.status, headers: Object.fromEntries(response.headers), body: (await response.json()) as any };
  };

  for (const [path, name] of [
    ['/v2/end-user/session', 'access_token'],
    ['/v2/end-user/connections', 'token'],
    ['/v2/end-user/apps', 'jwt'],
    ['/v2/webhooks', 'api_key'],
    ['/v1/users', 'apiKey'],
  ] as const) {
    it(`GET ${path}?${name}=<token>`, async () => {
      const answer = await get(`${path}?${name}=${path.startsWith('/v2/end-user') ? endUserToken : gw.apiKey}`);
      expectDocumentedIfDescribed('GET', path, answer);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
      expect(answer.headers['www-authenticate']).to.equal('Bearer');
      expect(answer.body).to.deep.equal({
        success: false,
        error: {
          code: 'UNAUTHORIZED',
          message: `the token goes in the Authorization header, not in the query string (${name}): send Authorization: Bearer <token>; a query string is kept in logs, proxies and browser history`,
        },
      });
    });
  }

  it('with an Authorization header, such a parameter is only unknown: 400 naming it', async () => {
    const answer = await get(`/v2/end-user/session?token=x`, { authorization: `Bearer ${endUserToken}` });
    expect(answer.status).to.equal(400);
    expect(answer.body.error.message).to.equal('token: is not a known query parameter');
  });

  it('another unknown parameter without a header is still the 400 naming it', async () => {
    const answer = await get('/v2/end-user/session?limt=5');
    expect(answer.status).to.equal(400);
  });

  it('never logs the token', () => {
    expect(gw.logs()).not.to.include(endUserToken);
    expect(gw.logs()).not.to.include(gw.apiKey);
  });
});
