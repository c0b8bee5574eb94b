import { expect } from 'chai';
import fc from 'fast-check';
import type { Collection as MongoCollection, Document } from 'mongodb';
import { ownDotValue, ownFieldsOnly } from '../../../engine/platform/store/embedded/own-fields.ts';
import { decodeKey, decodeValue, encodeFilter, encodeKey, encodePath, encodeSort, encodeUpdate, encodeValue } from '../../../engine/platform/store/field-encoding.ts';
import { MongoCollectionAdapter } from '../../../engine/platform/store/mongodb/mongo-store.ts';

/** Every key a store could refuse or misread, and ordinary ones. */
const AWKWARD_KEYS = ['api.version', '$set', '$', '100%', '%2E', 'a.b.c', '..', '$a.$b', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'ünï.cødé', '日本語', '🙂.x', 'nul\0key', '', 'plain', 'with space'];

/** Where arrays sit inside arrays in a value, as paths; the store must never be handed one. */
function arraysInArrays(value: unknown, inArray = false, at = ''): string[] {
  if (Array.isArray(value)) return inArray ? [at] : value.flatMap((item, i) => arraysInArrays(item, true, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => arraysInArrays(item, inArray, `${at}.${key}`));
}

describe('store field encoding (both adapters)', () => {
  it('escapes the keys a store refuses or misreads, reversibly, and leaves ordinary names alone', () => {
    expect(encodeKey('api.version')).to.equal('api%2Eversion');
    expect(encodeKey('$set')).to.equal('%24set');
    expect(encodeKey('a$b')).to.equal('a$b');
    expect(encodeKey('100%')).to.equal('100%25');
    expect(encodeKey('%2E')).to.equal('%252E');
    expect(encodeKey('nul\0key')).to.equal('nul%00key');
    expect(encodeKey('__proto__')).to.equal('%5F_proto__');
    for (const name of ['companyId', 'metadata', 'createdOn', '_id', 'constructor', '日本語', '']) expect(encodeKey(name)).to.equal(name);
    for (const key of AWKWARD_KEYS) {
      const stored = encodeKey(key);
      expect(decodeKey(stored), key).to.equal(key);
      expect(stored).to.not.include('.');
      expect(stored).to.not.match(/^\$/);
      expect(stored).to.not.include('\0');
      expect(stored).to.not.equal('__proto__');
    }
  });

  it('gives back any JSON value exactly, after a trip through JSON text as the stores keep it', () => {
    const key = fc.oneof(fc.constantFrom(...AWKWARD_KEYS), fc.string());
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    })).object;
    fc.assert(
      fc.property(json, (value) => {
        const stored = JSON.parse(JSON.stringify(encodeValue(value))) as unknown;
        expect(arraysInArrays(stored)).to.deep.equal([]);
        expect(decodeValue(stored)).to.deep.equal(value);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a __proto__ key an own property on the way back, never the prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const back = decodeValue(JSON.parse(JSON.stringify(encodeValue(value)))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).to.equal(Object.prototype);
    expect(Object.keys(back)).to.deep.equal(['__proto__', 'a']);
    expect(JSON.stringify(back)).to.equal('{"__proto__":{"polluted":true},"a":1}');
  });

  it('writes an array within an array as its JSON text, so no stored path crosses two arrays', () => {
    const depth26 = JSON.parse('['.repeat(26) + '1' + ']'.repeat(26)) as unknown;
    expect(encodeValue({ d: depth26 })).to.deep.equal({ d: [{ '%json': '['.repeat(25) + '1' + ']'.repeat(25) }] });
    // An array anywhere below an array: objects in between do not count.
    expect(encodeValue({ apps: [{ appSlug: 'a', tags: ['x', ['y']] }] })).to.deep.equal({ apps: [{ appSlug: 'a', tags: { '%json': '["x",["y"]]' } }] });
    // One level of arrays stays an array: filters still reach its items (apps.appSlug==a, metadata.tags==x).
    expect(encodeValue({ tags: ['x', 'y'] })).to.deep.equal({ tags: ['x', 'y'] });
  });

  it('keeps dates and other non-JSON values as they are', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const encoded = encodeValue({ createdOn: at, n: 1, s: 's', nothing: null }) as Record<string, unknown>;
    expect(encoded.createdOn).to.equal(at);
    expect(decodeValue(encoded)).to.deep.equal({ createdOn: at, n: 1, s: 's', nothing: null });
  });

  it('escapes field paths in filters, sorts and updates segment by segment, and leaves operators and values alone', () => {
    expect(encodePath('metadata.api.$v')).to.equal('metadata.api.%24v');
    const like = /^a.*$/i;
    expect(
      encodeFilter({
        companyId: 'cmp_1',
        $and: [{ 'metadata.$x': { $in: ['1', 1] } }, { $or: [{ 'settings.100%': null }, { 'settings.100%': { $exists: false } }] }],
        name: { $regex: like },
        'metadata.obj': { 'a.b': 1 },
      }),
    ).to.deep.equal({
      companyId: 'cmp_1',
      $and: [{ 'metadata.%24x': { $in: ['1', 1] } }, { $or: [{ 'settings.100%25': null }, { 'settings.100%25': { $exists: false } }] }],
      name: { $regex: like },
      'metadata.obj': { 'a%2Eb': 1 },
    });
    expect(encodeSort({ 'metadata.$x': -1, id: 1 })).to.deep.equal({ 'metadata.%24x': -1, id: 1 });
    expect(encodeUpdate({ $set: { metadata: { 'api.version': '2' }, 'settings.$x': 1 }, $inc: { memberCount: 1 }, $unset: { 'a.$b': true } })).to.deep.equal({
      $set: { metadata: { 'api%2Eversion': '2' }, 'settings.%24x': 1 },
      $inc: { memberCount: 1 },
      $unset: { 'a.%24b': true },
    });
  });

  describe('the MongoDB adapter (a recording fake collection: MongoDB cannot run here)', () => {
    function fakeCollection(stored: Document[]) {
      const calls: { op: string; args: unknown[] }[] = [];
      const cursor = {
        sort: (...args: unknown[]) => (calls.push({ op: 'sort', args }), cursor),
        skip: () => cursor,
        limit: () => cursor,
        toArray: async () => stored,
      };
      const collection = {
        insertOne: async (...args: unknown[]) => (calls.push({ op: 'insertOne', args }), { acknowledged: true }),
        findOne: async (...args: unknown[]) => (calls.push({ op: 'findOne', args }), stored[0] ?? null),
        find: (...args: unknown[]) => (calls.push({ op: 'find', args }), cursor),
        countDocuments: async (...args: unknown[]) => (calls.push({ op: 'countDocuments', args }), stored.length),
        updateOne: async (...args: unknown[]) => (calls.push({ op: 'updateOne', args }), { matchedCount: 1 }),
        deleteOne: async (...args: unknown[]) => (calls.push({ op: 'deleteOne', args }), { deletedCount: 1 }),
        deleteMany: async (...args: unknown[]) => (calls.push({ op: 'deleteMany', args }), { deletedCount: 1 }),
      };
      return { calls, collection: collection as unknown as MongoCollection<Document> };
    }

    it('writes escaped keys and nested arrays as text, queries escaped paths, and reads records back as given', async () => {
      const record: { id: string; companyId: string; metadata: Record<string, unknown> } = { id: 'eu_1', companyId: 'cmp_1', metadata: { 'api.version': '2', $tier: 'gold', '100%': { ü: [[1]] } } };
      const storedForm = { _id: 'eu_1', id: 'eu_1', companyId: 'cmp_1', metadata: { 'api%2Eversion': '2', '%24tier': 'gold', '100%25': { ü: [{ '%json': '[1]' }] } } };
      const { calls, collection } = fakeCollection([storedForm]);
      const adapter = new MongoCollectionAdapter<typeof record>('endUsers', collection, 5000);
      await adapter.insert(record);
      expect(calls[0]).to.deep.equal({ op: 'insertOne', args: [storedForm] });
      expect(await adapter.findOne({ id: 'eu_1', 'metadata.$tier': 'gold' })).to.deep.equal(record);
      expect(calls[1]!.args[0]).to.deep.equal({ id: 'eu_1', 'metadata.%24tier': 'gold' });
      expect(await adapter.find({ 'metadata.api.version': '2' }, { sort: { 'metadata.$tier': 1 } })).to.deep.equal([record]);
      expect(calls[2]!.args[0]).to.deep.equal({ 'metadata.api.version': '2' });
      expect(calls[3]!.args[0]).to.deep.equal({ 'metadata.%24tier': 1 });
      await adapter.count({ 'metadata.$tier': 'gold' });
      await adapter.updateOne({ 'metadata.$tier': 'gold' }, { $set: { metadata: { 'a.b': 1 } } });
      await adapter.deleteOne({ 'metadata.$tier': 'gold' });
      await adapter.deleteMany({ 'metadata.$tier': 'gold' });
      const limits = { maxTimeMS: 5000 };
      expect(calls.slice(4)).to.deep.equal([
        { op: 'countDocuments', args: [{ 'metadata.%24tier': 'gold' }, limits] },
        { op: 'updateOne', args: [{ 'metadata.%24tier': 'gold' }, { $set: { metadata: { 'a%2Eb': 1 } } }, limits] },
        { op: 'deleteOne', args: [{ 'metadata.%24tier': 'gold' }, limits] },
        { op: 'deleteMany', args: [{ 'metadata.%24tier': 'gold' }, limits] },
      ]);
    });
  });

  describe('own fields on the embedded store', () => {
    it('reads dotted paths through own properties of objects and arrays only', () => {
      const doc = { metadata: { region: 'eu', tags: ['a', 'bb'], sub: { constructor: { name: 'own' } }, list: [{ k: 1 }, { k: 2 }] } };
      expect(ownDotValue(doc, ['metadata', 'region'])).to.equal('eu');
      expect(ownDotValue(doc, ['metadata', 'constructor', 'name'])).to.equal(undefined);
      expect(ownDotValue(doc, ['metadata', 'toString'])).to.equal(undefined);
      expect(ownDotValue(doc, ['metadata', '__proto__'])).to.equal(undefined);
      expect(ownDotValue(doc, ['metadata', 'region', 'length'])).to.equal(undefined);
      expect(ownDotValue(doc, ['metadata', 'tags', 'length'])).to.deep.equal([undefined, undefined]);
      expect(ownDotValue(doc, ['metadata', 'tags', '1'])).to.equal('bb');
      expect(ownDotValue(doc, ['metadata', 'sub', 'constructor', 'name'])).to.equal('own');
      expect(ownDotValue(doc, ['metadata', 'list', 'k'])).to.deep.equal([1, 2]);
    });

    it('guards every dotted condition, wherever it sits, and leaves top-level fields to the indexes', () => {
      const filter = ownFieldsOnly({ companyId: 'c', 'metadata.a': 1, $or: [{ 'settings.b': 2 }, { id: 'x' }] });
      expect(Object.keys(filter)).to.deep.equal(['companyId', '$or', '$and']);
      expect(filter.companyId).to.equal('c');
      const [first, second] = filter.$or as Record<string, unknown>[];
      expect(Object.keys(first!)).to.deep.equal(['$and']);
      expect(second).to.deep.equal({ id: 'x' });
      expect((filter.$and as Record<string, unknown>[]).map((f) => Object.keys(f))).to.deep.equal([['$where']]);
    });
  });
});
