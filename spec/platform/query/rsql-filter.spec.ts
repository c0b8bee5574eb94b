import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { COMPANY_FIELDS } from '../../../engine/tenancy/companies/company-fields.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { rsqlToFilter, WHERE_LIMITS } from '../../../engine/platform/query/rsql-filter.ts';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../../engine/platform/store/mongodb/mongo-store.ts';
import { openPgliteStore } from '../../../engine/platform/store/sql/open-pglite.ts';
import { openPostgresStore } from '../../../engine/platform/store/sql/open-postgres.ts';
import { freshDatabase, postgresUnavailableReason } from '../../helpers/postgres.ts';
import type { CompanyRecord, Store } from '../../../engine/platform/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * RSQL as data: every case in rsql-cases.json is a `where` over the company
 * fields, run as the translated filter against a store holding the six
 * companies below (the embedded store and PostgreSQL always, MongoDB too when
 * MONGODB_URI is set), or rejected with the exact message a client sees.
 */
const cases = JSON.parse(readFileSync(new URL('./rsql-cases.json', import.meta.url), 'utf8')) as {
  matches: { where: string; ids: string[]; why?: string }[];
  rejections: { where: string; message: string }[];
};

const at = (iso: string) => new Date(iso);
function company(id: string, fields: Partial<CompanyRecord>): CompanyRecord {
  return {
    id, name: id, description: null, isPersonal: false, timezone: 'UTC', settings: {}, isDeleted: false,
    createdOn: at('2026-01-01T00:00:00Z'), updatedOn: at('2026-01-01T00:00:00Z'), plan: 'free', billingSubscriptionProductId: null,
    subscriptionIsLegacy: false, subscriptionUpdatedOn: null, memberCount: 0, ...fields,
  };
}

export const RSQL_COMPANIES: CompanyRecord[] = [
  company('c1', { name: 'Acme Corp', settings: { locale: 'de', beta: true, seats: 5 }, updatedOn: at('2026-01-05T00:00:00Z'), plan: 'pro', billingSubscriptionProductId: 'prod_A', subscriptionUpdatedOn: at('2026-01-02T00:00:00Z'), memberCount: 10 }),
  company('c2', { name: 'acme labs', description: 'R&D', timezone: 'Europe/Berlin', settings: { locale: 'en', beta: 'true' }, createdOn: at('2026-02-01T00:00:00Z'), updatedOn: at('2026-02-01T00:00:00Z'), memberCount: 3 }),
  company('c3', { name: 'Beta (Inc.)', description: 'a*b', isPersonal: true, timezone: 'America/New_York', isDeleted: true, createdOn: at('2026-03-01T12:30:00Z'), updatedOn: at('2026-03-01T12:30:00Z'), plan: 'pro', billingSubscriptionProductId: 'prod_B', subscriptionIsLegacy: true, subscriptionUpdatedOn: at('2026-03-02T00:00:00Z'), memberCount: 1 }),
  company('c4', { name: 'Gamma', description: '', settings: { locale: 'de', nested: { tier: 'gold' } }, createdOn: at('2026-04-01T00:00:00Z'), updatedOn: at('2026-04-01T00:00:00Z'), plan: 'enterprise', billingSubscriptionProductId: 'prod_A', subscriptionUpdatedOn: at('2026-04-01T00:00:00Z'), memberCount: 250 }),
  company('c5', { name: 'Delta.Co', isPersonal: true, timezone: 'Asia/Tokyo', settings: { seats: 12 }, createdOn: at('2025-12-31T23:59:59Z'), updatedOn: at('2025-12-31T23:59:59Z'), subscriptionIsLegacy: true }),
  company('c6', { name: 'Epsilon', description: 'Quote "x"', settings: { locale: 'fr' }, createdOn: at('2026-05-01T00:00:00Z'), updatedOn: at('2026-05-01T00:00:00Z'), plan: 'pro', billingSubscriptionProductId: 'prod_C', subscriptionUpdatedOn: at('2026-05-02T00:00:00Z'), memberCount: 42 }),
];

function rejection(where: string): { status: number; code: string; message: string; problems: unknown } {
  try {
    rsqlToFilter(where, COMPANY_FIELDS);
  } catch (error) {
    expect(error).to.be.instanceOf(GatewayError);
    const e = error as GatewayError;
    return { status: e.status, code: e.code, message: e.message, problems: (e.details as { problems: unknown }).problems };
  }
  throw new Error(`expected ${where} to be rejected`);
}

const stores: { name: string; unavailable(): string | null; open(): Promise<{ store: Store; dispose(): Promise<void> }> }[] = [
  {
    name: 'embedded (PGlite)',
    unavailable: () => null,
    async open() {
      const { dir, cleanup } = await tempDir();
      return { store: await openPgliteStore(dir, { queryTimeoutMs: 5_000, templateDir: process.env.PGLITE_TEMPLATE_DIR }), dispose: cleanup };
    },
  },
  {
    name: 'PostgreSQL',
    unavailable: postgresUnavailableReason,
    async open() {
      const database = await freshDatabase();
      return { store: await openPostgresStore(database.url, { queryTimeoutMs: 5_000, poolMax: 2 }), dispose: database.drop };
    },
  },
  {
    name: 'MongoDB',
    unavailable: () => (process.env.MONGODB_URI ? null : 'MONGODB_URI is not set'),
    async open() {
      const uri = process.env.MONGODB_URI!;
      const dbName = `igw_rsql_${process.pid}_${Date.now()}`;
      return {
        store: await openMongoStore(uri, dbName),
        async dispose() {
          const client = await MongoClient.connect(uri);
          await client.db(dbName).dropDatabase();
          await client.close();
        },
      };
    },
  },
];

for (const adapter of stores) {
  describe(`RSQL where -> store filter: matches on the ${adapter.name} store`, function () {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async function () {
      this.timeout(60_000);
      const reason = adapter.unavailable();
      if (reason) {
        console.log(`      SKIPPED: the RSQL cases did not run on ${adapter.name}: ${reason}`);
        this.skip();
      }
      ({ store, dispose } = await adapter.open());
      for (const c of RSQL_COMPANIES) await store.companies.insert(c);
    });
    after(async () => {
      if (!store) return;
      await store.close();
      await dispose();
    });

    for (const { where, ids, why } of cases.matches) {
      it(`${where}  ->  [${ids.join(', ')}]${why ? `  (${why})` : ''}`, async () => {
        const found = await store.companies.find(rsqlToFilter(where, COMPANY_FIELDS), { sort: { id: 1 } });
        expect(found.map((c) => c.id)).to.deep.equal(ids);
      });
    }
  });
}

describe('RSQL where -> store filter', () => {
  describe('rejections: 400 VALIDATION_ERROR on where, saying where and why', () => {
    for (const { where, message } of cases.rejections) {
      it(`${JSON.stringify(where)}: ${message}`, () => {
        const got = rejection(where);
        expect(got).to.deep.include({ status: 400, code: 'VALIDATION_ERROR', message: `where: ${message}` });
        expect(got.problems).to.deep.equal([{ field: 'where', rule: 'rsql', message }]);
      });
    }
  });

  describe('limits', () => {
    it('refuses a where longer than the limit', () => {
      expect(rejection(`name==${'a'.repeat(WHERE_LIMITS.maxLength)}`).message).to.equal(`where: must be at most ${WHERE_LIMITS.maxLength} characters`);
    });
    it('refuses too many comparisons', () => {
      const where = Array.from({ length: WHERE_LIMITS.maxComparisons + 1 }, () => 'plan==pro').join(';');
      expect(rejection(where).message).to.equal(`where: must have at most ${WHERE_LIMITS.maxComparisons} comparisons`);
    });
    it('refuses too many values in a list', () => {
      const values = Array.from({ length: WHERE_LIMITS.maxListValues + 1 }, (_, i) => i).join(',');
      expect(rejection(`memberCount=in=(${values})`).message).to.equal(`where: =in= takes at most ${WHERE_LIMITS.maxListValues} values at position 17`);
    });
    it('refuses a =like= pattern that is too long or has too many wildcards', () => {
      expect(rejection(`name=like=${'a'.repeat(WHERE_LIMITS.maxLikeLength + 1)}`).message).to.equal(`where: =like= patterns are at most ${WHERE_LIMITS.maxLikeLength} characters at position 11`);
      expect(rejection(`name=like=${'a*'.repeat(WHERE_LIMITS.maxLikeWildcards + 1)}`).message).to.equal(`where: =like= patterns have at most ${WHERE_LIMITS.maxLikeWildcards} wildcards at position 11`);
    });
    it('refuses a value a field of fixed values never holds, naming them (status==bogus would match nothing)', () => {
      const fields = { status: { type: 'string', values: ['active', 'needs_reauthorization'], description: 'status' } } as const;
      expect(rsqlToFilter('status==active', fields)).to.deep.equal({ status: 'active' });
      expect(() => rsqlToFilter('status=in=(active,bogus)', fields)).to.throw('where: status is one of active, needs_reauthorization (got "bogus") at position 19');
    });
    it('refuses a filter whose =like= patterns together have more than 20 wildcards (each within its own 10), naming the pattern past it', () => {
      const pattern = `*${'a*'.repeat(WHERE_LIMITS.maxLikeWildcards - 1)}b`;
      expect(rsqlToFilter(`name=like=${pattern},name=like=${pattern}`, COMPANY_FIELDS)).to.have.property('$or');
      const three = `name=like=${pattern},name=like=${pattern},name=like=${pattern}`;
      expect(rejection(three).message).to.equal(`where: the =like= patterns of one filter have at most ${WHERE_LIMITS.maxLikeWildcardsInAll} wildcards in all at position ${2 * ('name=like='.length + pattern.length + 1) + 'name=like='.length + 1}`);
    });
  });

  describe('the filter documents it builds', () => {
    it('hands =like= to the store as its own $like operator (no regular expression), and flattens a chain of ; into one $and', () => {
      expect(rsqlToFilter('name=like="a.b*(c)*";plan==pro;memberCount>=1', COMPANY_FIELDS)).to.deep.equal({
        $and: [{ name: { $like: 'a.b*(c)*' } }, { plan: 'pro' }, { memberCount: { $gte: 1 } }],
      });
    });
    it('keeps OR under AND as written', () => {
      expect(rsqlToFilter('plan==pro;(memberCount>5,isPersonal==true)', COMPANY_FIELDS)).to.deep.equal({
        $and: [{ plan: 'pro' }, { $or: [{ memberCount: { $gt: 5 } }, { isPersonal: true }] }],
      });
    });
    it('compares dates as instants and keys of an object by every type the text can stand for', () => {
      expect(rsqlToFilter('createdOn<2026-01-01', COMPANY_FIELDS)).to.deep.equal({ createdOn: { $lt: new Date('2026-01-01T00:00:00Z') } });
      expect(rsqlToFilter('settings.seats==5', COMPANY_FIELDS)).to.deep.equal({ 'settings.seats': { $in: ['5', 5] } });
    });
  });
});
