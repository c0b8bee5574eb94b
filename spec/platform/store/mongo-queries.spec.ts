import { expect } from 'chai';
import fc from 'fast-check';
import { MongoServerError, type Collection as MongoCollection, type Document } from 'mongodb';
import { COMPANY_FIELDS } from '../../../engine/tenancy/companies/company-fields.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { rsqlToFilter } from '../../../engine/platform/query/rsql-filter.ts';
import { likeMatcher } from '../../../engine/platform/store/like/like-pattern.ts';
import { likeAsRegex, likeRegexSource } from '../../../engine/platform/store/mongodb/like-regex.ts';
import { MongoCollectionAdapter } from '../../../engine/platform/store/mongodb/mongo-store.ts';

/**
 * What the MongoDB adapter sends, without a MongoDB server (the contract
 * suites run against one when MONGODB_URI is set): `$like` as a `$regex`
 * that answers exactly what the embedded store's matcher answers and cannot
 * backtrack without bound, and `maxTimeMS` on every query, whose expiry is
 * 503 QUERY_TIMEOUT.
 *
 * The pattern only uses syntax PCRE (MongoDB) and JavaScript's `u` flag read
 * alike (classes, `(?!…)`, `[\s\S]`, `^`, backslash escapes of syntax
 * characters and `\xHH`), so running it as a JavaScript RegExp checks what
 * MongoDB runs.
 */
const asMongoRuns = (pattern: string) => new RegExp(likeRegexSource(pattern), 'u');

const alphabet = ['a', 'A', 'b', 'B', '.', '(', ')', '\\', '[', ']', '^', '$', '-', '/', '|', '?', '+', '{', '}', ' ', '\n', '\u0000', '\t', 'é', 'É', 'ß', 'ẞ', 's', 'S', 'ſ', 'k', 'K', '\u212a', 'i', 'I', 'ı', 'İ', 'σ', 'ς', 'Σ', '𐐨', '𐐀', '中'];
const text = (maxLength: number) => fc.array(fc.constantFrom(...alphabet), { maxLength }).map((a) => a.join(''));
const pattern = fc.array(fc.constantFrom(...alphabet, '*', '*', '*'), { minLength: 1, maxLength: 10 }).map((a) => a.join(''));

describe('MongoDB adapter: =like=', () => {
  it('sends $like as a $regex, everything else of the filter as it was', () => {
    const filter = { $and: [{ companyId: 'c1' }, rsqlToFilter('name=like="a.b*(c)*";plan==pro', COMPANY_FIELDS)] };
    expect(likeAsRegex(filter)).to.deep.equal({
      $and: [
        { companyId: 'c1' },
        { $and: [{ name: { $regex: '^[aA]\\.[bB](?:(?!\\([cC]\\))[\\s\\S])*\\([cC]\\)[\\s\\S]*(?![\\s\\S])' } }, { plan: 'pro' }] },
      ],
    });
    expect(likeRegexSource('Delta')).to.equal('^[Dd][eE][lL][tT][aA](?![\\s\\S])');
    expect(likeRegexSource('k*')).to.equal('^[kK\u212a][\\s\\S]*(?![\\s\\S])');
  });

  it('matches exactly what the embedded store matches (property test, any characters)', () => {
    fc.assert(
      fc.property(pattern, text(14), (p, v) => {
        expect(asMongoRuns(p).test(v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`).to.equal(likeMatcher(p)(v));
      }),
      { numRuns: 6000, seed: 1404 },
    );
  });

  it('matches exactly what the embedded store matches on values built to match (property test)', () => {
    fc.assert(
      fc.property(pattern, fc.array(text(4), { minLength: 11, maxLength: 11 }), fc.boolean(), (p, fillers, spoil) => {
        const pieces = p.split(/\*+/);
        let value = pieces.map((piece, i) => (i === 0 ? piece : fillers[i]! + piece)).join('');
        if (spoil) value = value.slice(0, -1);
        expect(asMongoRuns(p).test(value), `${JSON.stringify(p)} on ${JSON.stringify(value)}`).to.equal(likeMatcher(p)(value));
      }),
      { numRuns: 3000, seed: 1405 },
    );
  });

  it('answers the worst case the limits allow (10 wildcards) on a 200-character value, and on 100,000 characters', () => {
    // The old `^.*a.*a…b$` never finishes these; this pattern gives nothing back it could try again.
    const value = `${'a'.repeat(199)}c`;
    expect(asMongoRuns('*a*a*a*a*a*a*a*a*a*b').test(value)).to.equal(false);
    expect(asMongoRuns('*A*a*A*a*a*A*a*a*a*C').test(value)).to.equal(true);
    expect(asMongoRuns(`*${'a'.repeat(9)}b*a*a*a*a*a*a*a*a*a`).test('a'.repeat(100_000))).to.equal(false);
  });

  it('never sends a NUL byte or an unescaped syntax character', () => {
    expect(likeRegexSource('a\u0000b')).to.equal('^[aA]\\x00[bB](?![\\s\\S])');
    expect(likeRegexSource('$^.|?+()[]{}/\\')).to.equal('^\\$\\^\\.\\|\\?\\+\\(\\)\\[\\]\\{\\}\\/\\\\(?![\\s\\S])');
  });
});

/** A stand-in for the driver's collection: records what each call was given, answers `answer` or throws `failure`. */
function fakeCollection(failure?: Error) {
  const calls: { method: string; filter: unknown; options: unknown }[] = [];
  const settle = <T>(answer: T) => (failure ? Promise.reject(failure) : Promise.resolve(answer));
  const record = (method: string, filter: unknown, options: unknown) => calls.push({ method, filter, options });
  const cursor = {
    sort: () => cursor,
    skip: () => cursor,
    limit: () => cursor,
    toArray: () => settle([{ _id: 'c1', id: 'c1' }]),
  };
  const collection = {
    findOne: (filter: unknown, options: unknown) => (record('findOne', filter, options), settle({ _id: 'c1', id: 'c1' })),
    find: (filter: unknown, options: unknown) => (record('find', filter, options), cursor),
    countDocuments: (filter: unknown, options: unknown) => (record('countDocuments', filter, options), settle(1)),
    updateOne: (filter: unknown, _update: unknown, options: unknown) => (record('updateOne', filter, options), settle({ matchedCount: 1 })),
    deleteOne: (filter: unknown, options: unknown) => (record('deleteOne', filter, options), settle({ deletedCount: 1 })),
    deleteMany: (filter: unknown, options: unknown) => (record('deleteMany', filter, options), settle({ deletedCount: 1 })),
  };
  return { calls, collection: collection as unknown as MongoCollection<Document> };
}

const everyQuery = async (adapter: MongoCollectionAdapter<{ id: string }>, filter: Record<string, unknown>) => [
  () => adapter.findOne(filter),
  () => adapter.find(filter, { sort: { id: 1 }, skip: 1, limit: 5 }),
  () => adapter.count(filter),
  () => adapter.updateOne(filter, { $set: {} }),
  () => adapter.deleteOne(filter),
  () => adapter.deleteMany(filter),
];

describe('MongoDB adapter: every query has a time limit', () => {
  it('sends maxTimeMS (STORE_QUERY_TIMEOUT_MS) with every find, count, update and delete, and $like as $regex', async () => {
    const { calls, collection } = fakeCollection();
    const adapter = new MongoCollectionAdapter<{ id: string }>('companies', collection, 1234);
    for (const run of await everyQuery(adapter, { name: { $like: 'a*' } })) await run();
    expect(calls.map((c) => c.method)).to.deep.equal(['findOne', 'find', 'countDocuments', 'updateOne', 'deleteOne', 'deleteMany']);
    for (const c of calls) {
      expect(c.options, c.method).to.deep.equal({ maxTimeMS: 1234 });
      expect(c.filter, c.method).to.deep.equal({ name: { $regex: '^[aA][\\s\\S]*(?![\\s\\S])' } });
    }
  });

  it('answers a query the server ended at its time limit (MaxTimeMSExpired, code 50) as 503 QUERY_TIMEOUT naming the limit', async () => {
    const expired = new MongoServerError({ message: 'operation exceeded time limit', code: 50, codeName: 'MaxTimeMSExpired' });
    const { collection } = fakeCollection(expired);
    const adapter = new MongoCollectionAdapter<{ id: string }>('companies', collection, 1234);
    for (const run of await everyQuery(adapter, { name: 'x' })) {
      const error = await run().then(
        () => expect.fail('expected QUERY_TIMEOUT'),
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(GatewayError);
      expect(error).to.include({ status: 503, code: 'QUERY_TIMEOUT' });
      expect((error as GatewayError).message).to.equal(
        'the store did not finish the query within STORE_QUERY_TIMEOUT_MS (1234 ms); narrow the request (a more selective where) or try again',
      );
      expect((error as GatewayError).toBody()).to.deep.equal({
        success: false,
        error: { code: 'QUERY_TIMEOUT', message: (error as GatewayError).message, details: { limitMs: 1234, setting: 'STORE_QUERY_TIMEOUT_MS' } },
      });
    }
  });

  it('passes other server errors on unchanged', async () => {
    const other = new MongoServerError({ message: 'something else', code: 2 });
    const adapter = new MongoCollectionAdapter<{ id: string }>('companies', fakeCollection(other).collection, 1234);
    expect(await adapter.count({}).catch((e: unknown) => e)).to.equal(other);
  });
});
