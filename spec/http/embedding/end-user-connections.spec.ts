import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

/** An end-user session: the token as the "API key" of call(). */
type Session = { url: string; apiKey: string };

describe('end users manage their own connections: /v2/end-user/* (end-user token)', () => {
  let gw: TestGateway;
  let ada: Session;
  let bob: Session;
  let adaId: string;
  const session = async (apiKey: string, externalId: string): Promise<{ session: Session; id: string }> => {
    const id = (await call({ url: gw.url, apiKey }, 'POST', '/v1/users', { body: { externalId } })).body.data.userId;
    const token = (await call({ url: gw.url, apiKey }, 'GET', `/v1/users/${id}/token`)).body.token;
    return { session: { url: gw.url, apiKey: token }, id };
  };
  const acme = { appSlug: 'acme-crm', credentials: { apiKey: 'ada-secret-key' }, metadata: { region: 'eu' } };

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    ({ session: ada, id: adaId } = await session(gw.apiKey, 'ada'));
    ({ session: bob } = await session(gw.apiKey, 'bob'));
    const put = await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.customer.test'], enabledApps: ['acme-crm', 'oauthy'] } });
    expect(put.status).to.equal(200);
    // oauthy signs in only with OAuth: listed to end users only once its client is configured.
    expect(put.body.data.warnings.map((w: { field: string; rule: string }) => `${w.field} ${w.rule}`)).to.deep.equal(['enabledApps[1] oauthNotConfigured']);
    expect((await documentedCall(ada, 'GET', '/v2/end-user/apps')).body.data.map((a: { slug: string }) => a.slug)).to.deep.equal(['acme-crm']);
    const configured = await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'oauthy-client', clientSecret: 'oauthy-secret', redirectUri: 'https://gateway.test/v2/connect/callback' } });
    expect(configured.status, JSON.stringify(configured.body)).to.equal(200);
  });
  after(async () => {
    await gw.stop();
  });

  it('lists the enabled apps with name, initials and each auth with its argument definitions as the API checks them', async () => {
    const apps = await documentedCall(ada, 'GET', '/v2/end-user/apps');
    expect(apps.status, JSON.stringify(apps.body)).to.equal(200);
    expect(apps.body.data.map((a: { slug: string }) => a.slug)).to.deep.equal(['acme-crm', 'oauthy']);
    const crm = apps.body.data[0];
    expect(crm).to.include({ name: 'Acme CRM', initials: 'AC' });
    // PUBLIC_BASE_URL (here its default, http://localhost:<PORT>) in front of the icon route.
    expect(crm.iconUrl).to.equal('http://localhost:0/v2/apps/acme-crm/icon');
    expect(crm.auths).to.have.length(1);
    expect(crm.auths[0]).to.include({ id: 'api-key', name: 'API key', type: 'ApiKey', connect: 'form' });
    expect(crm.auths[0].arguments[0]).to.include({ key: 'apiKey', label: 'API key', dataType: 'String', required: true, hidden: false });
    const region = crm.metadataArguments.find((a: { key: string }) => a.key === 'region');
    expect(region).to.include({ required: true, dataType: 'List' });
    expect(region.list.type).to.equal('Fixed');
    expect(region.list.options.map((o: { value: string }) => o.value)).to.include.members(['eu', 'us']);
    expect(apps.body.data[1].auths[0]).to.include({ type: 'OAuth2AuthorizationCode', connect: 'oauth' });
    expect(apps.body.meta).to.deep.equal({ count: 2 });
  });

  it('creates a connection owned by the token\'s end user, checked as POST /v2/connections checks it', async () => {
    const created = await documentedCall(ada, 'POST', '/v2/end-user/connections', { body: { ...acme, name: 'My CRM' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.include({ appSlug: 'acme-crm', endUserId: adaId, name: 'My CRM', status: 'active' });
    expect(JSON.stringify(created.body)).not.to.include('ada-secret-key');

    // The same body through both routes meets the same problems.
    const bad = { appSlug: 'acme-crm', credentials: { apiKye: 'x' }, metadata: { region: 'mars' } };
    const asEndUser = await documentedCall(ada, 'POST', '/v2/end-user/connections', { body: bad });
    const asCompany = await documentedCall(gw, 'POST', '/v2/connections', { body: bad });
    expect(asEndUser.status).to.equal(400);
    expect(asEndUser.body.error).to.deep.equal(asCompany.body.error);
    expect(asEndUser.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.deep.equal([
      'credentials.apiKey required',
      'credentials.apiKye unknown',
      'metadata.region list',
    ]);
    // An end user cannot name another end user.
    const other = await documentedCall(ada, 'POST', '/v2/end-user/connections', { body: { ...acme, endUserId: 'eu_someone' } });
    expect(other.status).to.equal(400);
    expect(other.body.error.message).to.include('endUserId');
  });

  it('refuses an app the company did not enable with 403 APP_NOT_ENABLED naming the setting, for create and for the OAuth authorize', async () => {
    const refused = await documentedCall(ada, 'POST', '/v2/end-user/connections', { body: { appSlug: 'exchangy', credentials: {} } });
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.deep.equal({ code: 'APP_NOT_ENABLED', message: 'app "exchangy" is not enabled for end users: the company adds it to enabledApps with PUT /v2/embedding' });
    const authorize = await documentedCall(ada, 'GET', `/v2/connect/exchangy/authorize?returnUrl=${encodeURIComponent('https://app.customer.test/back')}`);
    expect(authorize.status).to.equal(403);
    expect(authorize.body.error.code).to.equal('APP_NOT_ENABLED');
    // An OAuth app is connected through the browser, not with credentials.
    const oauth = await documentedCall(ada, 'POST', '/v2/end-user/connections', { body: { appSlug: 'oauthy', credentials: { accessToken: 'stolen' } } });
    expect(oauth.status).to.equal(400);
    expect(oauth.body.error.details.problems[0]).to.include({ field: 'authId', rule: 'oauth2' });
  });

  it('lists only the end user\'s own connections: never another end user\'s or the company\'s', async () => {
    const bobs = await documentedCall(bob, 'POST', '/v2/end-user/connections', { body: { ...acme, credentials: { apiKey: 'bob-key' } } });
    expect(bobs.status).to.equal(201);
    const company = await documentedCall(gw, 'POST', '/v2/connections', { body: acme });
    expect(company.status).to.equal(201);

    const adaList = await documentedCall(ada, 'GET', '/v2/end-user/connections');
    expect(adaList.status).to.equal(200);
    expect(adaList.body.data.map((c: { endUserId: string }) => c.endUserId)).to.deep.equal([adaId]);
    expect(adaList.body.meta.pagination.totalCount ?? adaList.body.data.length).to.equal(1);
    const bobList = await documentedCall(bob, 'GET', '/v2/end-user/connections?fields=id,status');
    expect(bobList.body.data).to.deep.equal([{ id: bobs.body.data.id, status: 'active' }]);
    // A filter cannot reach outside the end user's scope.
    const widened = await documentedCall(ada, 'GET', `/v2/end-user/connections?where=${encodeURIComponent(`id==${bobs.body.data.id}`)}`);
    expect(widened.body.data).to.deep.equal([]);
  });

  it('deletes the end user\'s own connection; another end user\'s or the company\'s is 404 and stays', async () => {
    const adas = (await call(ada, 'GET', '/v2/end-user/connections')).body.data[0].id;
    const bobs = (await call(bob, 'GET', '/v2/end-user/connections')).body.data[0].id;
    const companys = (await call(gw, 'GET', '/v2/connections')).body.data.find((c: { endUserId: string | null }) => c.endUserId === null).id;
    for (const id of [bobs, companys]) {
      const refused = await documentedCall(ada, 'DELETE', `/v2/end-user/connections/${id}`);
      expect(refused.status).to.equal(404);
      expect(refused.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${id} does not exist` });
      expect((await call(gw, 'GET', `/v2/connections/${id}`)).status).to.equal(200);
    }
    const deleted = await documentedCall(ada, 'DELETE', `/v2/end-user/connections/${adas}`);
    expect(deleted.status).to.equal(200);
    expect(deleted.body.data).to.deep.equal({ id: adas, deleted: true });
    expect((await call(gw, 'GET', `/v2/connections/${adas}`)).status).to.equal(404);
  });

  it('takes an end-user token: the API key, no token or another company\'s end user are refused', async () => {
    expect((await documentedCall(gw, 'GET', '/v2/end-user/connections')).status).to.equal(401);
    expect((await documentedCall(ada, 'GET', '/v2/end-user/apps', { auth: null })).status).to.equal(401);
    // Another company's end user sees none of this company's apps or connections.
    const other = await otherTenant(gw.gateway.services.store);
    const { session: stranger } = await session(other.apiKey, 'ada');
    expect((await documentedCall(stranger, 'GET', '/v2/end-user/apps')).body.data).to.deep.equal([]);
    expect((await documentedCall(stranger, 'GET', '/v2/end-user/connections')).body.data).to.deep.equal([]);
    const bobs = (await call(bob, 'GET', '/v2/end-user/connections')).body.data[0].id;
    expect((await documentedCall(stranger, 'DELETE', `/v2/end-user/connections/${bobs}`)).status).to.equal(404);
    const refused = await documentedCall(stranger, 'POST', '/v2/end-user/connections', { body: acme });
    expect(refused.body.error.code).to.equal('APP_NOT_ENABLED');
  });
});
