import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { hashApiKey, issueApiKey } from '../../../engine/tenancy/api-keys/api-keys.ts';
import { RecentRecords } from '../../../engine/platform/store/recent-records.ts';
import { openEmbeddedStore } from '../../../engine/platform/store/embedded/nedb-store.ts';
import type { ApiKeyRecord, Collection, Filter, Store } from '../../../engine/platform/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/** The store's keys collection, counting the queries that reach it; `shared` hides writeCount, as MongoDB's adapter has none. */
function counted(keys: Collection<ApiKeyRecord>, options: { shared?: boolean; duringQuery?: () => Promise<void> } = {}) {
  const queries: Filter[] = [];
  const wrapper = Object.create(keys) as Collection<ApiKeyRecord> & { writeCount?: number };
  Object.defineProperty(wrapper, 'writeCount', { get: () => (options.shared ? undefined : keys.writeCount) });
  wrapper.findOne = async (filter: Filter) => {
    queries.push(filter);
    const found = await keys.findOne(filter);
    await options.duringQuery?.();
    return found;
  };
  return { keys: wrapper, queries };
}

/** The lookup an API key check makes, through the cache. */
const lookup = (cache: RecentRecords<ApiKeyRecord>, keys: Collection<ApiKeyRecord>, hash: string) => cache.find(keys, hash, () => keys.findOne({ hash, revokedOn: null }));

describe('recent records (the API key and connection caches)', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  const owner = { companyId: 'cmp_a', userId: 'usr_a' };
  beforeEach(async () => {
    const temp = await tempDir();
    cleanup = temp.cleanup;
    store = await openEmbeddedStore(temp.dir);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('peek: hands out a remembered record at once, nothing once the collection was written, and nothing on a store without writeCount', async () => {
    const { record } = await issueApiKey(store, owner, 'peeked', 'peek-key-0123456789abcdefghij');
    const cache = new RecentRecords<ApiKeyRecord>();
    expect(cache.peek(store.apiKeys, record.hash)).to.equal(undefined);
    expect((await lookup(cache, store.apiKeys, record.hash))!.id).to.equal(record.id);
    expect(cache.peek(store.apiKeys, record.hash)!.id).to.equal(record.id);
    expect(cache.peek(store.apiKeys, 'another hash')).to.equal(undefined);
    await store.apiKeys.updateOne({ id: record.id, revokedOn: null }, { $set: { revokedOn: new Date() } });
    expect(cache.peek(store.apiKeys, record.hash)).to.equal(undefined);
    expect(await lookup(cache, store.apiKeys, record.hash)).to.equal(null);
    const shared = counted(store.apiKeys, { shared: true }).keys;
    expect(cache.peek(shared, record.hash)).to.equal(undefined);
  });

  it('answers a key found once without asking the store again', async () => {
    const { key, record } = await issueApiKey(store, owner, 'ci');
    const { keys, queries } = counted(store.apiKeys);
    const cache = new RecentRecords<ApiKeyRecord>();
    expect((await lookup(cache, keys, hashApiKey(key)))?.id).to.equal(record.id);
    expect((await lookup(cache, keys, hashApiKey(key)))?.id).to.equal(record.id);
    expect(queries).to.have.length(1);
  });

  it('refuses a key on the first lookup after it was revoked', async () => {
    const { key, record } = await issueApiKey(store, owner, 'ci');
    const { keys } = counted(store.apiKeys);
    const cache = new RecentRecords<ApiKeyRecord>();
    expect(await lookup(cache, keys, hashApiKey(key))).not.to.equal(null);
    expect(await store.apiKeys.updateOne({ id: record.id, revokedOn: null }, { $set: { revokedOn: new Date() } })).to.equal(true);
    expect(await lookup(cache, keys, hashApiKey(key))).to.equal(null);
  });

  it('refuses a key whose record was deleted', async () => {
    const { key, record } = await issueApiKey(store, owner, 'ci');
    const cache = new RecentRecords<ApiKeyRecord>();
    expect(await lookup(cache, store.apiKeys, hashApiKey(key))).not.to.equal(null);
    expect(await store.apiKeys.deleteOne({ id: record.id })).to.equal(true);
    expect(await lookup(cache, store.apiKeys, hashApiKey(key))).to.equal(null);
  });

  it('does not keep an answer a revocation overtook while the query ran', async () => {
    const { key, record } = await issueApiKey(store, owner, 'ci');
    const cache = new RecentRecords<ApiKeyRecord>();
    let overtaken: Promise<ApiKeyRecord | null> | null = null;
    const { keys } = counted(store.apiKeys, {
      duringQuery: async () => {
        if (overtaken) return;
        // The first query saw the key active; before its answer comes back, the key is revoked and another lookup runs.
        await store.apiKeys.updateOne({ id: record.id }, { $set: { revokedOn: new Date() } });
        overtaken = lookup(cache, keys, hashApiKey(key));
      },
    });
    expect(await lookup(cache, keys, hashApiKey(key))).not.to.equal(null);
    expect(await overtaken).to.equal(null);
    expect(await lookup(cache, keys, hashApiKey(key))).to.equal(null);
  });

  it('hands out frozen records, so no caller can change what the next lookup gets', async () => {
    const { key } = await issueApiKey(store, owner, 'ci');
    const cache = new RecentRecords<ApiKeyRecord>();
    await lookup(cache, store.apiKeys, hashApiKey(key));
    const record = await lookup(cache, store.apiKeys, hashApiKey(key));
    expect(Object.isFrozen(record)).to.equal(true);
    expect(() => {
      (record as { companyId: string }).companyId = 'cmp_other';
    }).to.throw(TypeError);
  });

  it('asks the store every time for unknown keys', async () => {
    const { keys, queries } = counted(store.apiKeys);
    const cache = new RecentRecords<ApiKeyRecord>();
    expect(await lookup(cache, keys, hashApiKey('igw_unknown'))).to.equal(null);
    expect(await lookup(cache, keys, hashApiKey('igw_unknown'))).to.equal(null);
    expect(queries).to.have.length(2);
  });

  it('caches nothing for a store other processes may write (no writeCount)', async () => {
    const { key } = await issueApiKey(store, owner, 'ci');
    const { keys, queries } = counted(store.apiKeys, { shared: true });
    const cache = new RecentRecords<ApiKeyRecord>();
    await lookup(cache, keys, hashApiKey(key));
    await lookup(cache, keys, hashApiKey(key));
    expect(queries).to.have.length(2);
  });

  it('keeps at most its limit of keys, making room by the oldest', async () => {
    const issued = [await issueApiKey(store, owner, 'a'), await issueApiKey(store, owner, 'b'), await issueApiKey(store, owner, 'c')];
    const { keys, queries } = counted(store.apiKeys);
    const cache = new RecentRecords<ApiKeyRecord>(2);
    for (const { key } of issued) await lookup(cache, keys, hashApiKey(key));
    expect(queries).to.have.length(3);
    await lookup(cache, keys, hashApiKey(issued[2]!.key));
    await lookup(cache, keys, hashApiKey(issued[1]!.key));
    expect(queries).to.have.length(3);
    await lookup(cache, keys, hashApiKey(issued[0]!.key));
    expect(queries).to.have.length(4);
  });

  it('hashes keys as they are stored: the hex SHA-256 of their UTF-8 bytes', () => {
    expect(hashApiKey('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey('igw_é')).to.equal(createHash('sha256').update(Buffer.from('igw_é', 'utf8')).digest('hex'));
  });

  it('counts every kind of write to an embedded collection, failed ones included', async () => {
    const { record } = await issueApiKey(store, owner, 'ci');
    expect(store.apiKeys.writeCount).to.equal(1);
    await store.apiKeys.updateOne({ id: record.id }, { $set: { name: 'renamed' } });
    await store.apiKeys.updateOne({ id: 'key_none' }, { $set: { name: 'x' } });
    await store.apiKeys.deleteMany({ id: 'key_none' });
    await store.apiKeys.insert(record).catch(() => undefined);
    await store.apiKeys.deleteOne({ id: record.id });
    expect(store.apiKeys.writeCount).to.equal(6);
  });
});
