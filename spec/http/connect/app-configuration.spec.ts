import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

/**
 * PUT /v2/apps/{appSlug}/configuration refuses, when it is saved, what could never work: an exchange URL the
 * egress policy refuses (the credential exchange would be 403 EGRESS_DENIED on every run), and a client id with
 * control characters (no provider issues one; it would be sent in the authorize URL and the token request).
 */
describe('an app configuration is checked when it is saved', () => {
  let gw: TestGateway;

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
  });
  after(async () => gw.stop());

  it('refuses an exchange URL on an address the egress policy refuses (400 naming exchangeUrl, rule egress); nothing is stored', async () => {
    for (const exchangeUrl of ['http://169.254.169.254/latest/meta-data/', 'https://127.0.0.1/exchange', 'https://[::1]/exchange', 'https://10.0.0.8/x']) {
      const put = await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123', exchangeUrl } });
      expect([put.status, put.body.error?.code], exchangeUrl).to.deep.equal([400, 'VALIDATION_ERROR']);
      expect(put.body.error.details.problems[0]).to.include({ field: 'exchangeUrl', rule: 'egress' });
      expect(put.body.error.message).to.include('exchangeUrl: refused by the egress policy');
    }
    expect((await call(gw, 'GET', '/v2/apps/oauthy/configuration')).status).to.equal(404);
    const fine = await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123', exchangeUrl: 'https://exchange.customer.test/credentials' } });
    expect(fine.status).to.equal(200);
    expect(fine.body.data.exchangeUrl).to.equal('https://exchange.customer.test/credentials');
  });

  it('refuses a client id with a control character (400 naming clientId)', async () => {
    const put = await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'a\r\nb' } });
    expect([put.status, put.body.error?.code]).to.deep.equal([400, 'VALIDATION_ERROR']);
    expect(put.body.error.message).to.include('clientId: must not hold control characters');
  });
});
