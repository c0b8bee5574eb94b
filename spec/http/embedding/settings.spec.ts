import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

describe('embedding settings: GET/PUT /v2/embedding (API key)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
  });
  after(async () => {
    await gw.stop();
  });

  it('starts with no origin and no app: nothing is open to browsers until the company says so', async () => {
    const shown = await documentedCall(gw, 'GET', '/v2/embedding');
    expect(shown.status).to.equal(200);
    expect(shown.body.data).to.deep.equal({ allowedOrigins: [], enabledApps: [], endUserProxy: false, updatedOn: null, theme: { primaryColor: null, mode: 'light', logoUrl: null } });
  });

  it('keeps endUserProxy as given, and off when a PUT leaves it out (a PUT replaces the settings whole)', async () => {
    const on = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: [], endUserProxy: true } });
    expect(on.body.data.endUserProxy).to.equal(true);
    expect((await documentedCall(gw, 'GET', '/v2/embedding')).body.data.endUserProxy).to.equal(true);
    const off = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: [] } });
    expect(off.body.data.endUserProxy).to.equal(false);
    const wrong = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: [], endUserProxy: 'yes' } });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error.details.problems[0]).to.include({ field: 'endUserProxy', rule: 'type' });
  });

  it('keeps the origins normalised as a browser sends them (host lower-cased, default port dropped) and the enabled apps', async () => {
    const put = await documentedCall(gw, 'PUT', '/v2/embedding', {
      body: { allowedOrigins: ['https://App.Example.com:443', 'http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'https://app.example.com'], enabledApps: ['acme-crm', 'oauthy'] },
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.data).to.deep.include({ allowedOrigins: ['https://app.example.com', 'http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000'], enabledApps: ['acme-crm', 'oauthy'] });
    const shown = await documentedCall(gw, 'GET', '/v2/embedding');
    expect(shown.body.data.allowedOrigins).to.deep.equal(['https://app.example.com', 'http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000']);
    expect(Date.parse(shown.body.data.updatedOn)).to.be.closeTo(Date.now(), 60_000);
    // A second PUT replaces both lists whole.
    await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://other.example.com'], enabledApps: [] } });
    expect((await documentedCall(gw, 'GET', '/v2/embedding')).body.data).to.deep.include({ allowedOrigins: ['https://other.example.com'], enabledApps: [] });
  });

  it('refuses an origin with a path, a wildcard, plain http off localhost, another scheme, and an app not loaded, naming each item and rule', async () => {
    const put = await documentedCall(gw, 'PUT', '/v2/embedding', {
      body: {
        allowedOrigins: ['https://app.example.com/connect', 'https://*.example.com', 'http://app.example.com', 'ftp://app.example.com', 'app.example.com', 'https://app.example.com/'],
        enabledApps: ['acme-crm', 'no-such-app'],
      },
    });
    expect(put.status).to.equal(400);
    expect(put.body.error.code).to.equal('VALIDATION_ERROR');
    expect(put.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.deep.equal([
      'allowedOrigins[0] origin',
      'allowedOrigins[1] exact',
      'allowedOrigins[2] https',
      'allowedOrigins[3] scheme',
      'allowedOrigins[4] origin',
      'allowedOrigins[5] origin',
      'enabledApps[1] exists',
    ]);
    expect(put.body.error.message).to.include('allowedOrigins[2]: must use https:// (plain http:// is allowed for localhost, 127.0.0.1 and [::1] only)').and.include('enabledApps[1]: no app with slug "no-such-app" is loaded');
    // Nothing was kept.
    expect((await documentedCall(gw, 'GET', '/v2/embedding')).body.data.allowedOrigins).to.deep.equal(['https://other.example.com']);
  });

  it('keeps an https logo URL for the Connect page, refuses any other (http, data:, a user name, too long) naming theme.logoUrl', async () => {
    const put = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: [], theme: { logoUrl: 'https://cdn.example.com/brand/logo.svg' } } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.data.theme).to.deep.equal({ primaryColor: null, mode: 'light', logoUrl: 'https://cdn.example.com/brand/logo.svg' });
    expect((await documentedCall(gw, 'GET', '/v2/embedding')).body.data.theme.logoUrl).to.equal('https://cdn.example.com/brand/logo.svg');
    const refused = [
      ['http://cdn.example.com/logo.png', 'https', /must be an https URL \(got http:\)/],
      ['data:image/svg+xml,<svg/>', 'https', /must be an https URL/],
      ['javascript:alert(1)', 'https', /must be an https URL/],
      ['/logo.png', 'https', /must be an absolute https URL/],
      ['https://user:secret@cdn.example.com/logo.png', 'https', /must not carry a user name or password/],
      [`https://cdn.example.com/${'a'.repeat(1000)}.png`, 'maxLength', /./],
    ] as const;
    for (const [logoUrl, rule, message] of refused) {
      const answer = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: [], theme: { logoUrl } } });
      expect(answer.status, logoUrl).to.equal(400);
      expect(answer.body.error.details.problems[0], logoUrl).to.include({ field: 'theme.logoUrl', rule });
      expect(answer.body.error.details.problems[0].message, logoUrl).to.match(message);
      // The password of a refused URL is not repeated back.
      expect(JSON.stringify(answer.body)).not.to.include('secret@');
    }
    expect((await documentedCall(gw, 'GET', '/v2/embedding')).body.data.theme.logoUrl, 'a refused PUT changes nothing').to.equal('https://cdn.example.com/brand/logo.svg');
    const cleared = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: [], theme: { logoUrl: null } } });
    expect(cleared.body.data.theme.logoUrl).to.equal(null);
  });

  it('refuses a body missing either list', async () => {
    const put = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [] } });
    expect(put.status).to.equal(400);
    expect(put.body.error.message).to.include('enabledApps');
  });

  it('takes an API key: an end-user token or no token is 401', async () => {
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    const token = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
    expect((await documentedCall(gw, 'GET', '/v2/embedding', { auth: token })).status).to.equal(401);
    expect((await documentedCall(gw, 'PUT', '/v2/embedding', { auth: null, body: { allowedOrigins: [], enabledApps: [] } })).status).to.equal(401);
  });
});
