import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

describe('installations (/v2/installations)', () => {
  let gw: TestGateway;
  let other: { companyId: string; apiKey: string };
  let endUserId: string;
  let acmeConnection: string;
  let oauthyConnection: string;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    other = await otherTenant(gw.gateway.services.store);
    endUserId = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    acmeConnection = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: { region: 'eu' } } })).body.data.id;
    oauthyConnection = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'oauthy', credentials: { accessToken: 't' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
  });

  it('binds an end user to apps through connections, and shows it', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/installations', {
      body: { endUserId, apps: [{ appSlug: 'acme-crm', connectionId: acmeConnection }, { appSlug: 'oauthy', connectionId: oauthyConnection }], metadata: { plan: 'pro' } },
    });
    expect(created.status).to.equal(201);
    expect(created.body.data).to.include({ endUserId });
    expect(created.body.data.id).to.match(/^ins_/);
    expect(created.body.data.apps).to.deep.equal([
      { appId: 'acme', appSlug: 'acme-crm', connectionId: acmeConnection },
      { appId: 'oauthy', appSlug: 'oauthy', connectionId: oauthyConnection },
    ]);
    const one = await documentedCall(gw, 'GET', `/v2/installations/${created.body.data.id}`);
    expect(one.body.data).to.deep.equal(created.body.data);
    const list = await documentedCall(gw, 'GET', `/v2/installations?where=apps.appSlug==oauthy;metadata.plan==pro&fields=id`);
    expect(list.body.data).to.deep.include({ id: created.body.data.id });
  });

  it('refuses a connection in use while an installation uses it (409), and allows it after', async () => {
    const { body } = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'acme-crm', connectionId: acmeConnection }] } });
    const refused = await documentedCall(gw, 'DELETE', `/v2/connections/${acmeConnection}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('CONFLICT');
    expect(refused.body.error.message).to.include(body.data.id);
    // Remove every installation that uses it, then the connection can go.
    const users = await documentedCall(gw, 'GET', `/v2/installations?fields=id&where=apps.connectionId==${acmeConnection}`);
    for (const { id } of users.body.data) expect((await documentedCall(gw, 'DELETE', `/v2/installations/${id}`)).status).to.equal(200);
    expect((await documentedCall(gw, 'DELETE', `/v2/connections/${acmeConnection}`)).status).to.equal(200);
    acmeConnection = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: { region: 'eu' } } })).body.data.id;
  });

  it('deletes an installation once however many DELETEs come at once: one 200, the rest 404', async () => {
    const { body } = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'acme-crm', connectionId: acmeConnection }] } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => documentedCall(gw, 'DELETE', `/v2/installations/${body.data.id}`)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, ...Array(19).fill(404)]);
  });

  it('reports every problem with the apps at once', async () => {
    const foreign = (await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'POST', '/v2/connections', { body: { appSlug: 'oauthy', credentials: { accessToken: 't' } } })).body.data.id;
    const response = await documentedCall(gw, 'POST', '/v2/installations', {
      body: {
        endUserId,
        apps: [
          { appSlug: 'nope', connectionId: acmeConnection },
          { appSlug: 'oauthy', connectionId: acmeConnection },
          { appSlug: 'oauthy', connectionId: foreign },
          { appSlug: 'acme-crm', connectionId: acmeConnection },
          { appSlug: 'acme-crm', connectionId: acmeConnection },
        ],
      },
    });
    expect(response.status).to.equal(400);
    expect(response.body.error.code).to.equal('VALIDATION_ERROR');
    expect(response.body.error.details.problems).to.deep.equal([
      { field: 'apps[0].appSlug', rule: 'exists', message: 'no app with slug "nope"' },
      { field: 'apps[1].connectionId', rule: 'app', message: `connection ${acmeConnection} is to app "acme-crm", not "oauthy"` },
      { field: 'apps[2].appSlug', rule: 'unique', message: 'app "oauthy" is listed twice' },
      { field: 'apps[4].appSlug', rule: 'unique', message: 'app "acme-crm" is listed twice' },
    ]);
  });

  it("refuses another company's connection as missing", async () => {
    const foreign = (await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'POST', '/v2/connections', { body: { appSlug: 'oauthy', credentials: { accessToken: 't' } } })).body.data.id;
    const response = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'oauthy', connectionId: foreign }] } });
    expect(response.status).to.equal(400);
    expect(response.body.error.details.problems).to.deep.equal([{ field: 'apps[0].connectionId', rule: 'exists', message: `connection ${foreign} does not exist` }]);
  });

  it('validates the body', async () => {
    const response = await documentedCall(gw, 'POST', '/v2/installations', { body: { apps: [] } });
    expect(response.status).to.equal(400);
    expect(response.body.error.message).to.include('endUserId: is required');
    expect(response.body.error.message).to.include('apps: must NOT have fewer than 1 items');
    const noBody = await documentedCall(gw, 'POST', '/v2/installations');
    expect(noBody.status).to.equal(400);
    expect(noBody.body.error.message).to.equal('body: a JSON object is required');
  });

  it("treats another company's installations and end users as missing (404)", async () => {
    const mine = (await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'oauthy', connectionId: oauthyConnection }] } })).body.data.id;
    const theirs = { url: gw.url, apiKey: other.apiKey };
    for (const method of ['GET', 'DELETE']) {
      const response = await documentedCall(theirs, method, `/v2/installations/${mine}`);
      expect(response.status).to.equal(404);
      expect(response.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `installation ${mine} does not exist` });
    }
    expect((await documentedCall(theirs, 'GET', '/v2/installations')).body.data).to.deep.equal([]);
    const foreignUser = await documentedCall(theirs, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'oauthy', connectionId: oauthyConnection }] } });
    expect(foreignUser.status).to.equal(404);
    expect(foreignUser.body.error.message).to.equal(`end user ${endUserId} does not exist`);
  });
});
