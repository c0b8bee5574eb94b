import { expect } from 'chai';
import { addMember, createCompany } from '../../../engine/tenancy/companies/companies.ts';
import { BOOTSTRAP_OWNER } from '../../../engine/tenancy/companies/bootstrap.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall as call } from '../../helpers/openapi.ts';

/**
 * GET /v1/companies as a customer's backend sees it: the companies the key's
 * owner belongs to (27 here: "Default" and 26 more, enough to page), never
 * another's, with fields, sort, limit, offset and where. Every answer is
 * checked against the OpenAPI document (documentedCall).
 */
describe('GET /v1/companies', () => {
  let gw: TestGateway;
  const PLANS = ['free', 'pro', 'enterprise'];
  before(async () => {
    gw = await startTestGateway();
    const store = gw.gateway.services.store;
    for (let i = 1; i <= 26; i++) {
      const company = await createCompany(store, { name: `Company ${String(i).padStart(2, '0')}`, plan: PLANS[i % 3]!, timezone: i % 2 ? 'UTC' : 'Europe/Berlin' });
      await addMember(store, company.id, { ...BOOTSTRAP_OWNER, role: 'admin' });
      for (let m = 1; m < i % 4; m++) await addMember(store, company.id, { name: `M${m}`, email: `m${m}.${i}@example.com` });
    }
    const foreign = await createCompany(store, { name: 'Someone else', plan: 'pro' });
    await addMember(store, foreign.id, { name: 'Stranger', email: 'stranger@example.com', role: 'owner' });
  });
  after(async () => {
    await gw.stop();
  });

  it('answers every company of the key owner with all fields and the pagination meta', async () => {
    const { status, body } = await call(gw, 'GET', '/v1/companies');
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.data).to.have.length(27);
    expect(body.meta).to.deep.equal({ pagination: { totalCount: 27, totalCountExact: true, hasNextPage: false, hasPreviousPage: false } });
    expect(body.data.map((c: any) => c.name)).not.to.include('Someone else');
    const first = body.data[0];
    expect(Object.keys(first)).to.deep.equal([
      'id', 'name', 'description', 'isPersonal', 'timezone', 'settings', 'isDeleted', 'createdOn', 'updatedOn',
      'plan', 'billingSubscriptionProductId', 'subscriptionIsLegacy', 'subscriptionUpdatedOn', 'memberCount',
    ]);
    expect(first).to.include({ name: 'Default', description: null, isPersonal: false, timezone: 'UTC', isDeleted: false, plan: 'free', memberCount: 1 });
    expect(first.createdOn).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(first.settings).to.deep.equal({});
  });

  it('pages with limit and offset, without overlap, and says whether there is more', async () => {
    const pages = [];
    for (const offset of [0, 10, 20]) {
      const { status, body } = await call(gw, 'GET', `/v1/companies?limit=10&offset=${offset}&fields=id`);
      expect(status).to.equal(200);
      pages.push(body);
    }
    expect(pages.map((p) => p.data.length)).to.deep.equal([10, 10, 7]);
    expect(pages.map((p) => p.meta.pagination)).to.deep.equal([
      { totalCount: 27, totalCountExact: true, hasNextPage: true, hasPreviousPage: false },
      { totalCount: 27, totalCountExact: true, hasNextPage: true, hasPreviousPage: true },
      { totalCount: 27, totalCountExact: true, hasNextPage: false, hasPreviousPage: true },
    ]);
    const ids = pages.flatMap((p) => p.data.map((c: any) => c.id));
    expect(new Set(ids).size).to.equal(27);
    const beyond = await call(gw, 'GET', '/v1/companies?offset=100');
    expect(beyond.body.data).to.deep.equal([]);
    expect(beyond.body.meta.pagination).to.deep.equal({ totalCount: 27, totalCountExact: true, hasNextPage: false, hasPreviousPage: true });
  });

  it('returns only the requested fields, in the documented order', async () => {
    const { body } = await call(gw, 'GET', '/v1/companies?fields=name,id&limit=2');
    expect(body.data).to.have.length(2);
    for (const item of body.data) expect(Object.keys(item)).to.deep.equal(['id', 'name']);
  });

  it('sorts by several fields, descending with a leading minus', async () => {
    const { body } = await call(gw, 'GET', '/v1/companies?sort=-memberCount,name&fields=name,memberCount&limit=4');
    expect(body.data).to.deep.equal([
      { name: 'Company 03', memberCount: 3 },
      { name: 'Company 07', memberCount: 3 },
      { name: 'Company 11', memberCount: 3 },
      { name: 'Company 15', memberCount: 3 },
    ]);
  });

  it('filters with where, and counts only what matches', async () => {
    const where = encodeURIComponent('plan==pro;(timezone==UTC,memberCount>=3);name=like=company*');
    const { status, body } = await call(gw, 'GET', `/v1/companies?where=${where}&fields=name,plan,timezone,memberCount&sort=name`);
    expect(status).to.equal(200);
    // pro: i % 3 == 1 -> 1,4,7,...,25; UTC: odd i; memberCount 3: i % 4 == 3.
    expect(body.data.map((c: any) => c.name)).to.deep.equal(['Company 01', 'Company 07', 'Company 13', 'Company 19', 'Company 25']);
    expect(body.meta.pagination).to.deep.equal({ totalCount: 5, totalCountExact: true, hasNextPage: false, hasPreviousPage: false });
  });

  it('filters by dates given as ISO 8601', async () => {
    const { body } = await call(gw, 'GET', `/v1/companies?where=${encodeURIComponent('createdOn>2000-01-01T00:00:00Z;createdOn<2999-01-01')}&fields=id`);
    expect(body.meta.pagination.totalCount).to.equal(27);
  });

  const rejected: [string, string, string][] = [
    ['limit=0', 'limit', 'limit: must be >= 1'],
    ['limit=1001', 'limit', 'limit: must be <= 1000'],
    ['limit=ten', 'limit', 'limit: must be an integer'],
    ['limit=1.5', 'limit', 'limit: must be an integer'],
    ['limit=', 'limit', 'limit: must be an integer'],
    ['offset=-1', 'offset', 'offset: must be >= 0'],
    ['offset=2.5', 'offset', 'offset: must be an integer'],
    ['limit=1&limit=2', 'limit', 'limit: must be given once'],
    ['offset=1&offset=2', 'offset', 'offset: must be given once'],
    ['offset=99999999999999999999', 'offset', 'offset: must be <= 9007199254740991'],
    ['fields=id,nope', 'fields', 'fields: unknown field "nope"; fields: id, name, description, isPersonal, timezone, settings, isDeleted, createdOn, updatedOn, plan, billingSubscriptionProductId, subscriptionIsLegacy, subscriptionUpdatedOn, memberCount'],
    ['fields=id,,name', 'fields', 'fields: must be a comma-separated list of field names without empty entries'],
    ['sort=-nope', 'sort', 'sort: unknown field "nope"; fields: id, name, description, isPersonal, timezone, settings, isDeleted, createdOn, updatedOn, plan, billingSubscriptionProductId, subscriptionIsLegacy, subscriptionUpdatedOn, memberCount'],
    ['sort=settings', 'sort', 'sort: settings is an object and cannot be sorted by'],
    ['sort=name,-name', 'sort', 'sort: names name twice'],
    ['where=nope==1', 'where', 'where: unknown field "nope" at position 1; filterable fields: id, name, description, isPersonal, timezone, settings, isDeleted, createdOn, updatedOn, plan, billingSubscriptionProductId, subscriptionIsLegacy, subscriptionUpdatedOn, memberCount'],
    ['where=memberCount%3D%3Dmany', 'where', 'where: memberCount must be an integer (got "many") at position 14'],
    ['where=', 'where', 'where: must not be empty; leave `where` out to match everything'],
    ['filter=plan==pro', 'filter', 'filter: is not a known query parameter'],
  ];
  for (const [query, field, message] of rejected) {
    it(`answers 400 VALIDATION_ERROR for ?${query}`, async () => {
      const { status, body } = await call(gw, 'GET', `/v1/companies?${query}`);
      expect(status).to.equal(400);
      expect(body.success).to.equal(false);
      expect(body.error.code).to.equal('VALIDATION_ERROR');
      expect(body.error.message).to.equal(message);
      expect(body.error.details.problems[0].field).to.equal(field);
    });
  }

  it('takes any offset up to 2^53 - 1, sixteen digits and more: past the end is an empty page', async () => {
    for (const offset of ['1000000000000000', '9007199254740991']) {
      const { status, body } = await call(gw, 'GET', `/v1/companies?offset=${offset}`);
      expect(status, offset).to.equal(200);
      expect(body.data, offset).to.deep.equal([]);
    }
  });

  it('requires an API key', async () => {
    const { status, body } = await call(gw, 'GET', '/v1/companies', { auth: null });
    expect(status).to.equal(401);
    expect(body.error.code).to.equal('UNAUTHORIZED');
  });
});
