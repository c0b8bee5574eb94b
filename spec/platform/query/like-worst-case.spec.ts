import { expect } from 'chai';
import path from 'node:path';
import { BOOTSTRAP_OWNER } from '../../../engine/tenancy/companies/bootstrap.ts';
import { addMember, createCompany } from '../../../engine/tenancy/companies/companies.ts';
import { WHERE_LIMITS } from '../../../engine/platform/query/rsql-filter.ts';
import type { InstallationRecord } from '../../../engine/platform/store/index.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';

/**
 * `=like=` at its worst, through the HTTP API on every list that takes
 * `where`: values as long as the field allows, patterns with as many
 * wildcards as the limits allow, one that cannot match and one that does.
 * `*a*a*a*a*a*a*a*a*a*b` on 199 x `a` + `c` used to be a backtracking
 * regular expression that never finished (the event loop frozen, this spec
 * with it); each must answer 200 with the right items.
 */
const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const WILDCARDS = WHERE_LIMITS.maxLikeWildcards;
/** `*x*x…*x` + `end`: the most wildcards allowed, each followed by one character. */
const pattern = (x: string, end: string) => `${`*${x}`.repeat(WILDCARDS - 1)}*${end}`;

describe('=like= at its worst on every list that takes where', () => {
  let gw: TestGateway;
  const list = async (route: string, where: string) => {
    const { status, body } = await call(gw, 'GET', `${route}?where=${encodeURIComponent(where)}&fields=id`);
    expect(status, JSON.stringify(body)).to.equal(200);
    return (body.data as { id: string }[]).map((item) => item.id).sort();
  };
  const sorted = (...ids: string[]) => [...ids].sort();

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
  });
  after(async () => {
    await gw.stop();
  });

  it('checks the patterns it uses are within the documented limits', () => {
    for (const p of [pattern('a', 'b'), pattern('A', 'C'), `${'a*'.repeat(WILDCARDS)}`]) {
      expect(p.length).to.be.at.most(WHERE_LIMITS.maxLikeLength);
      expect(p.split('*').length - 1).to.equal(WILDCARDS);
    }
  });

  describe('GET /v2/connections (name: up to 200 characters)', () => {
    let endsInC: string;
    let allA: string;
    before(async () => {
      const make = async (name: string) => (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', name, credentials: { apiKey: 'k' }, metadata: { region: 'eu' } } })).body.data.id as string;
      endsInC = await make(`${'a'.repeat(199)}c`);
      allA = await make('a'.repeat(200));
      await make('short');
    });

    it('no match, 5 wildcards (21-25 s before)', async () => {
      expect(await list('/v2/connections', 'name=like=*a*a*a*a*b')).to.deep.equal([]);
    });
    it(`no match: name=like=${pattern('a', 'b')}`, async () => {
      expect(await list('/v2/connections', `name=like=${pattern('a', 'b')}`)).to.deep.equal([]);
    });
    it(`a match, any case: name=like=${pattern('A', 'C')}`, async () => {
      expect(await list('/v2/connections', `name=like=${pattern('A', 'C')}`)).to.deep.equal([endsInC]);
    });
    it('matches both long names: name=like=a*a*…a* (10 wildcards)', async () => {
      expect(await list('/v2/connections', `name=like=${'a*'.repeat(WILDCARDS)}`)).to.deep.equal(sorted(endsInC, allA));
    });
  });

  describe('GET /v1/companies (name: no length limit; the operator sets it)', () => {
    let long: string;
    before(async () => {
      // Company names come from the admin tool, which takes any length: 5,000 characters here.
      const store = gw.gateway.services.store;
      const company = await createCompany(store, { name: `${'a'.repeat(4999)}c` });
      await addMember(store, company.id, { ...BOOTSTRAP_OWNER, role: 'member' });
      long = company.id;
      // Another company's long name is never listed, matching or not.
      const other = await otherTenant(store, `${'a'.repeat(4999)}c`);
      expect(other.companyId).to.not.equal(long);
    });

    it(`no match: name=like=${pattern('a', 'b')}`, async () => {
      expect(await list('/v1/companies', `name=like=${pattern('a', 'b')}`)).to.deep.equal([]);
    });
    it(`a match: name=like=${pattern('A', 'C')}`, async () => {
      expect(await list('/v1/companies', `name=like=${pattern('A', 'C')}`)).to.deep.equal([long]);
    });
  });

  describe('GET /v2/installations (endUserId: up to 100 characters)', () => {
    let real: string;
    let longest: string;
    before(async () => {
      const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId as string;
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: { region: 'eu' } } })).body.data.id as string;
      const made = await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'acme-crm', connectionId }] } });
      expect(made.status).to.equal(201);
      real = made.body.data.id;
      // The API only takes ids of existing end users (`eu_` + 24 hex digits); the schema allows 100 characters, so a record at that length is put in directly.
      const store = gw.gateway.services.store;
      const record = (await store.installations.findOne({ id: real }))!;
      longest = 'ins_longest';
      await store.installations.insert({ ...record, id: longest, endUserId: `${'a'.repeat(99)}c` } as InstallationRecord);
    });

    it(`no match: endUserId=like=${pattern('a', 'b')}`, async () => {
      expect(await list('/v2/installations', `endUserId=like=${pattern('a', 'b')}`)).to.deep.equal([]);
    });
    it(`a match: endUserId=like=${pattern('A', 'C')}`, async () => {
      expect(await list('/v2/installations', `endUserId=like=${pattern('A', 'C')}`)).to.deep.equal([longest]);
    });
    it('a match on a real end user id: endUserId=like=EU_*', async () => {
      expect(await list('/v2/installations', 'endUserId=like=EU_*')).to.deep.equal([real]);
    });
  });
});
