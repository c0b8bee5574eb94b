import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { seal } from '../../../engine/platform/crypto/cipher.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

/** Keys the stores used to refuse (500): dots, a leading $, %, escapes look-alikes, Unicode, nested. */
const METADATA = { 'api.version': '2', $tier: 'gold', '100%': 'all', '%2E': 'not an escape', 'ünï.cødé': '日本', '🙂': true, region: 'eu' };
const NESTED_TEXT = JSON.stringify(METADATA).replace(/}$/, ',"a.b":{"$c":{"d.e":["$f",{"g.h":1}]}}}');
// Bodies (400 INVALID_JSON) and the authorize parameter (400 VALIDATION_ERROR) refuse a __proto__ key; a store given one
// (a record written by an older release, another program) keeps it as a key like any other.
const WITH_PROTO_TEXT = NESTED_TEXT.replace(/}$/, ',"__proto__":"a key like any other"}');

describe('object keys are kept exactly as given (end users, connections, installations, authorize)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
  });
  after(async () => {
    await gw.stop();
  });

  it('accepts keys with . $ % and Unicode, answers them as given, and still has them after a restart', async () => {
    const user = await call(gw, 'POST', '/v1/users', { body: `{"metadata":${NESTED_TEXT}}` });
    expect(user.status, JSON.stringify(user.body)).to.equal(200);
    const endUserId = user.body.data.userId;

    const connection = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: METADATA } });
    expect(connection.status, JSON.stringify(connection.body)).to.equal(201);
    expect(connection.body.data.metadata).to.deep.equal(METADATA);
    const connectionId = connection.body.data.id;

    const installation = await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'acme-crm', connectionId }], metadata: METADATA } });
    expect(installation.status, JSON.stringify(installation.body)).to.equal(201);
    expect(installation.body.data.metadata).to.deep.equal(METADATA);

    expect((await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-1', clientSecret: 'secret-1' } })).status).to.equal(200);
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.example.test'], enabledApps: [] } })).status).to.equal(200);
    const authorize = await call(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent('https://app.example.test/back')}&metadata=${encodeURIComponent(NESTED_TEXT)}`);
    expect(authorize.status, JSON.stringify(authorize.body)).to.equal(200);
    const withProto = await call(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent('https://app.example.test/back')}&metadata=${encodeURIComponent(WITH_PROTO_TEXT)}`);
    expect(withProto.status).to.equal(400);
    expect(withProto.body.error.details.problems).to.deep.equal([
      { field: 'metadata', rule: 'json', message: 'has a member named "__proto__", which no JSON the gateway takes may hold (it would set an object\'s prototype): rename or remove it' },
    ]);
    const { store: before, keyring } = gw.gateway.services;
    const companyId = (await before.companies.find({}))[0]!.id;
    await before.pendingAuthorizations.insert({ id: 'pa_with_proto', companyId, appSlug: 'oauthy', authId: 'oauth2', endUserId: null, metadata: JSON.parse(WITH_PROTO_TEXT), secrets: seal(keyring, 'pa_with_proto', {}), expiresAt: new Date(Date.now() + 600_000), createdOn: new Date() });

    await gw.stop({ keepData: true });
    gw = await startTestGateway({ DEFINITIONS_DIR, DATA_DIR: gw.dataDir });
    const store = gw.gateway.services.store;
    // Every key and value as given; not their order: the SQL stores keep JSON as JSONB, which orders an object's keys
    // (RFC 8259: an object is an unordered collection; docs/operations.md says so).
    expect((await store.endUsers.findOne({ id: endUserId }))!.metadata).to.deep.equal(JSON.parse(NESTED_TEXT));
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.metadata).to.deep.equal(METADATA);
    expect((await call(gw, 'GET', `/v2/installations/${installation.body.data.id}`)).body.data.metadata).to.deep.equal(METADATA);
    const listed = await call(gw, 'GET', '/v2/connections?fields=metadata');
    expect(listed.body.data).to.deep.include({ metadata: METADATA });
    const pending = await store.pendingAuthorizations.find({});
    expect(pending.map((p) => p.metadata)).to.deep.include(JSON.parse(NESTED_TEXT));
    expect((await store.pendingAuthorizations.findOne({ id: 'pa_with_proto' }))!.metadata).to.deep.equal(JSON.parse(WITH_PROTO_TEXT));
  });

  it('filters by metadata after storing such keys; a key `where` cannot name is a 400, not a 500', async () => {
    const list = await call(gw, 'GET', `/v2/connections?where=${encodeURIComponent('metadata.region==eu;metadata.🙂==true')}&fields=metadata`);
    // 🙂 is no key `where` can name (letters, digits, _ and -): refused, not a 500.
    expect(list.status).to.equal(400);
    const byRegion = await call(gw, 'GET', `/v2/installations?where=${encodeURIComponent('metadata.region==eu')}&fields=metadata`);
    expect(byRegion.status).to.equal(200);
    expect(byRegion.body.data).to.deep.include({ metadata: METADATA });
  });
});

describe('object-field filters use own keys only: no prototype name is ever a field', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    for (const metadata of [{ region: 'eu' }, { region: 'us', constructor: 'mine' }]) {
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata } })).body.data.id;
      const installed = await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'acme-crm', connectionId }], metadata } });
      expect(installed.status).to.equal(201);
    }
  });
  after(async () => {
    await gw.stop();
  });

  const PROTOTYPE_FILTERS = [
    'constructor.name==Object',
    'constructor.name==String',
    '__proto__!=null',
    'toString!=null',
    'hasOwnProperty!=null',
    'valueOf!=null',
    'isPrototypeOf!=null',
    'region.length==2',
    'region.constructor.name==String',
  ];

  for (const [list, field] of [['/v2/connections', 'metadata'], ['/v2/installations', 'metadata'], ['/v1/companies', 'settings']] as const) {
    it(`${list}: ${field}.constructor, __proto__, toString ... match no record that lacks them`, async () => {
      for (const filter of PROTOTYPE_FILTERS) {
        const response = await call(gw, 'GET', `${list}?where=${encodeURIComponent(`${field}.${filter}`)}&fields=id`);
        expect(response.status, `${field}.${filter}: ${JSON.stringify(response.body)}`).to.equal(200);
        expect(response.body.data, `${field}.${filter}`).to.deep.equal([]);
      }
    });
  }

  it('a key named like a prototype property is an ordinary key when a record has it', async () => {
    for (const list of ['/v2/connections', '/v2/installations']) {
      const mine = await call(gw, 'GET', `${list}?where=metadata.constructor==mine&fields=metadata`);
      expect(mine.body.data, list).to.deep.equal([{ metadata: { region: 'us', constructor: 'mine' } }]);
      const notMine = await call(gw, 'GET', `${list}?where=metadata.constructor!=mine&fields=metadata`);
      expect(notMine.body.data, list).to.deep.equal([{ metadata: { region: 'eu' } }]);
    }
    const store = gw.gateway.services.store;
    const [company] = await store.companies.find({});
    await store.companies.updateOne({ id: company!.id }, { $set: { settings: { constructor: { name: 'own' } } } });
    const own = await call(gw, 'GET', `/v1/companies?where=${encodeURIComponent('settings.constructor.name==own')}&fields=id,settings`);
    expect(own.body.data).to.deep.equal([{ id: company!.id, settings: { constructor: { name: 'own' } } }]);
    const object = await call(gw, 'GET', `/v1/companies?where=${encodeURIComponent('settings.constructor.name==Object')}&fields=id`);
    expect(object.body.data).to.deep.equal([]);
  });
});
