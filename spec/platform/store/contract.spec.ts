import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../../engine/platform/store/mongodb/mongo-store.ts';
import { openPgliteStore } from '../../../engine/platform/store/sql/open-pglite.ts';
import { openPostgresStore } from '../../../engine/platform/store/sql/open-postgres.ts';
import { COLLECTION_NAMES } from '../../../engine/platform/store/port.ts';
import { DuplicateKeyError, type EndUserRecord, type Store, type WebhookDeliveryRecord } from '../../../engine/platform/store/index.ts';
import { freshDatabase, postgresUnavailableReason } from '../../helpers/postgres.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * One contract, every adapter: the embedded store (PGlite in DATA_DIR) and a
 * PostgreSQL server always (a throwaway cluster: spec/helpers/postgres.ts),
 * MongoDB when MONGODB_URI is set. All must answer the same filters the same
 * way. Each adapter's store is opened once for its suite and emptied before
 * each test (opening PGlite takes seconds).
 */
interface Adapter {
  name: string;
  /** Why it cannot run here, or null. */
  unavailable(): string | null;
  open(): Promise<{ store: Store; reopen(): Promise<Store>; dispose(): Promise<void> }>;
  /** Whether `transaction` is atomic on it. */
  transactions: boolean;
}

const QUERY_TIMEOUT_MS = 5_000;

const adapters: Adapter[] = [
  {
    name: 'embedded (PGlite)',
    unavailable: () => null,
    transactions: true,
    async open() {
      const { dir, cleanup } = await tempDir();
      const open = () => openPgliteStore(dir, { queryTimeoutMs: QUERY_TIMEOUT_MS, templateDir: process.env.PGLITE_TEMPLATE_DIR });
      return { store: await open(), reopen: open, dispose: cleanup };
    },
  },
  {
    name: 'PostgreSQL',
    unavailable: postgresUnavailableReason,
    transactions: true,
    async open() {
      const database = await freshDatabase();
      const open = () => openPostgresStore(database.url, { queryTimeoutMs: QUERY_TIMEOUT_MS, poolMax: 5 });
      return { store: await open(), reopen: open, dispose: database.drop };
    },
  },
  {
    name: 'MongoDB',
    unavailable: () => (process.env.MONGODB_URI ? null : 'MONGODB_URI is not set (no MongoDB server runs here or in CI)'),
    transactions: false,
    async open() {
      const uri = process.env.MONGODB_URI!;
      const dbName = `igw_contract_${process.pid}_${Date.now()}`;
      const open = () => openMongoStore(uri, dbName);
      return {
        store: await open(),
        reopen: open,
        async dispose() {
          const client = await MongoClient.connect(uri);
          await client.db(dbName).dropDatabase();
          await client.close();
        },
      };
    },
  },
];

function delivery(id: string, overrides: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord {
  const at = new Date('2026-01-01T00:00:00Z');
  return {
    id, companyId: 'cmp_a', endpointId: 'whk_1', eventId: `evt_${id}`, eventType: 'connection.created', payload: '{"id":"evt"}', status: 'pending',
    attempts: 0, claims: 0, nextAttemptAt: at, giveUpAt: new Date('2026-01-02T00:00:00Z'), lastAttemptAt: null, responseStatus: null,
    durationMs: null, error: null, createdOn: at, updatedOn: at, finishedOn: null, ...overrides,
  };
}

function endUser(id: string, overrides: Partial<EndUserRecord> = {}): EndUserRecord {
  const at = new Date('2026-01-01T00:00:00Z');
  return { id, companyId: 'cmp_a', externalId: null, name: id, email: null, isTestUser: false, metadata: {}, createdOn: at, updatedOn: at, ...overrides };
}

for (const adapter of adapters) {
  describe(`store contract: ${adapter.name}`, function () {
    this.timeout(60_000);
    let store: Store;
    let reopen: () => Promise<Store>;
    let dispose: () => Promise<void>;
    before(async function () {
      const reason = adapter.unavailable();
      if (reason) {
        console.log(`      SKIPPED: the ${adapter.name} store contract did not run: ${reason}`);
        this.skip();
      }
      ({ store, reopen, dispose } = await adapter.open());
    });
    beforeEach(async () => {
      for (const name of COLLECTION_NAMES) await store[name].deleteMany({});
    });
    after(async () => {
      if (!store) return;
      await store.close();
      await dispose();
    });

    it('inserts and finds a record as it was written, dates included, without _id', async () => {
      const record = endUser('eu_1', { metadata: { subdomain: 'acme', nested: { a: [1, 2] } } });
      await store.endUsers.insert(record);
      const found = await store.endUsers.findOne({ id: 'eu_1' });
      expect(found).to.deep.equal(record);
      expect(found!.createdOn).to.be.instanceOf(Date);
      expect(await store.endUsers.findOne({ id: 'eu_none' })).to.equal(null);
    });

    it('filters with the operators the engine builds', async () => {
      for (let i = 1; i <= 6; i++) {
        await store.endUsers.insert(endUser(`eu_${i}`, { name: `user ${i}`, isTestUser: i % 2 === 0, companyId: i <= 4 ? 'cmp_a' : 'cmp_b', createdOn: new Date(Date.UTC(2026, 0, i)) }));
      }
      const ids = async (filter: Record<string, unknown>) => (await store.endUsers.find(filter, { sort: { id: 1 } })).map((r) => r.id);
      expect(await ids({ companyId: 'cmp_a', isTestUser: true })).to.deep.equal(['eu_2', 'eu_4']);
      expect(await ids({ $or: [{ id: 'eu_1' }, { id: 'eu_6' }] })).to.deep.equal(['eu_1', 'eu_6']);
      expect(await ids({ $and: [{ companyId: 'cmp_a' }, { id: { $in: ['eu_1', 'eu_5'] } }] })).to.deep.equal(['eu_1']);
      expect(await ids({ id: { $nin: ['eu_1', 'eu_2', 'eu_3'] } })).to.deep.equal(['eu_4', 'eu_5', 'eu_6']);
      expect(await ids({ id: { $ne: 'eu_1' }, companyId: 'cmp_b' })).to.deep.equal(['eu_5', 'eu_6']);
      expect(await ids({ createdOn: { $gte: new Date(Date.UTC(2026, 0, 5)) } })).to.deep.equal(['eu_5', 'eu_6']);
      expect(await ids({ createdOn: { $lt: new Date(Date.UTC(2026, 0, 2)) } })).to.deep.equal(['eu_1']);
      expect(await ids({ name: { $like: 'USER *' }, companyId: 'cmp_b' })).to.deep.equal(['eu_5', 'eu_6']);
      expect(await store.endUsers.count({ companyId: 'cmp_a' })).to.equal(4);
      expect(await store.endUsers.count({ companyId: 'cmp_a' }, { limit: 3 }), 'a count stops at its limit').to.equal(3);
      expect(await store.endUsers.count({ companyId: 'cmp_a' }, { limit: 10 })).to.equal(4);
    });

    it('answers a lookup by id together with other fields exactly as the filter says, for every operation', async () => {
      for (let i = 0; i < 50; i++) await store.endUsers.insert(endUser(`eu_${i}`, { companyId: i % 2 ? 'cmp_a' : 'cmp_b' }));
      expect((await store.endUsers.findOne({ id: 'eu_7', companyId: 'cmp_a' }))?.id).to.equal('eu_7');
      expect(await store.endUsers.findOne({ id: 'eu_7', companyId: 'cmp_b' })).to.equal(null);
      expect(await store.endUsers.findOne({ id: 'eu_none', companyId: 'cmp_a' })).to.equal(null);
      expect((await store.endUsers.find({ id: 'eu_8', companyId: 'cmp_b' })).map((e) => e.id)).to.deep.equal(['eu_8']);
      expect(await store.endUsers.count({ id: 'eu_8', companyId: 'cmp_a' })).to.equal(0);
      expect(await store.endUsers.updateOne({ id: 'eu_9', companyId: 'cmp_b' }, { $set: { name: 'x' } })).to.equal(false);
      expect(await store.endUsers.updateOne({ id: 'eu_9', companyId: 'cmp_a' }, { $set: { name: 'x' } })).to.equal(true);
      expect(await store.endUsers.deleteOne({ id: 'eu_9', companyId: 'cmp_b' })).to.equal(false);
      expect(await store.endUsers.deleteMany({ id: 'eu_11', companyId: 'cmp_a' })).to.equal(1);
      expect(await store.endUsers.count({ companyId: 'cmp_a' })).to.equal(24);
      expect((await store.endUsers.findOne({ id: 'eu_9' }))?.name).to.equal('x');
    });

    it('sorts, skips and limits', async () => {
      for (const [id, name] of [['eu_1', 'c'], ['eu_2', 'a'], ['eu_3', 'b'], ['eu_4', 'a']] as const) {
        await store.endUsers.insert(endUser(id, { name }));
      }
      const page = await store.endUsers.find({}, { sort: { name: -1, id: 1 }, skip: 1, limit: 2 });
      expect(page.map((r) => r.id)).to.deep.equal(['eu_3', 'eu_2']);
    });

    it('updates with $set, $inc and $unset, and reports a lost compare-and-set', async () => {
      await store.companies.insert({
        id: 'cmp_1', name: 'A', description: null, isPersonal: false, timezone: 'UTC', settings: {}, isDeleted: false,
        createdOn: new Date(), updatedOn: new Date(), plan: 'free', billingSubscriptionProductId: null, subscriptionIsLegacy: false,
        subscriptionUpdatedOn: null, memberCount: 0, bootstrapPending: true,
      });
      expect(await store.companies.findOne({ bootstrapPending: true })).to.include({ id: 'cmp_1' });
      expect(await store.companies.updateOne({ id: 'cmp_1' }, { $inc: { memberCount: 2 }, $set: { name: 'B' } })).to.equal(true);
      expect(await store.companies.updateOne({ id: 'cmp_1', memberCount: 0 }, { $set: { name: 'lost' } })).to.equal(false);
      expect(await store.companies.updateOne({ id: 'cmp_1', memberCount: 2 }, { $unset: { bootstrapPending: true } })).to.equal(true);
      const company = await store.companies.findOne({ id: 'cmp_1' });
      expect(company).to.include({ name: 'B', memberCount: 2, description: null });
      expect(company).not.to.have.property('bootstrapPending');
      expect(await store.companies.findOne({ bootstrapPending: true })).to.equal(null);
    });

    it('gives a compare-and-set one winner among writers racing for it', async () => {
      await store.webhookDeliveries.insert(delivery('whd_race'));
      const claims = await Promise.all(
        Array.from({ length: 8 }, () => store.webhookDeliveries.updateOne({ id: 'whd_race', status: 'pending', claims: 0 }, { $inc: { claims: 1 } })),
      );
      expect(claims.filter(Boolean)).to.have.length(1);
      expect((await store.webhookDeliveries.findOne({ id: 'whd_race' }))!.claims).to.equal(1);
    });

    it('commits the writes of a transaction together, and none of them when it throws', async function () {
      if (!adapter.transactions) this.skip();
      await store.transaction(async () => {
        await store.endUsers.insert(endUser('eu_1'));
        await store.webhookDeliveries.insert(delivery('whd_1'));
      });
      expect(await store.endUsers.count({})).to.equal(1);
      const failure = await store
        .transaction(async () => {
          await store.endUsers.insert(endUser('eu_2'));
          await store.webhookDeliveries.insert(delivery('whd_2'));
          // A transaction begun inside joins the outer one, and its writes go with it.
          await store.transaction(async (inner) => inner.endUsers.insert(endUser('eu_3')));
          throw new Error('the change failed half-way');
        })
        .catch((e: unknown) => e as Error);
      expect(failure.message).to.equal('the change failed half-way');
      expect((await store.endUsers.find({}, { sort: { id: 1 } })).map((u) => u.id)).to.deep.equal(['eu_1']);
      expect((await store.webhookDeliveries.find({})).map((d) => d.id)).to.deep.equal(['whd_1']);
      // A unique violation inside rolls everything back too, and is still a DuplicateKeyError.
      const duplicate = await store.transaction(async () => {
        await store.endUsers.insert(endUser('eu_4'));
        await store.endUsers.insert(endUser('eu_1'));
      }).catch((e: unknown) => e);
      expect(duplicate).to.be.instanceOf(DuplicateKeyError);
      expect(await store.endUsers.count({ id: 'eu_4' })).to.equal(0);
    });

    it('keeps the writes of an open transaction unseen by other work until it commits', async function () {
      if (!adapter.transactions) this.skip();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const running = store.transaction(async () => {
        await store.endUsers.insert(endUser('eu_tx'));
        inside();
        await held;
      });
      await entered;
      const outside = store.endUsers.count({ id: 'eu_tx' });
      // PostgreSQL answers at once from before the commit; PGlite is one connection, so the reader waits for the commit.
      if (store.kind === 'postgres') expect(await outside).to.equal(0);
      release();
      await running;
      if (store.kind !== 'postgres') expect(await outside).to.equal(1);
      expect(await store.endUsers.count({ id: 'eu_tx' })).to.equal(1);
    });

    it('holds an exclusive lock taken inside an open transaction until that transaction ends', async function () {
      if (!adapter.transactions) this.skip();
      const order: string[] = [];
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const first = store.transaction(async () => {
        await store.transaction(
          async () => {
            order.push('first locked');
            locked();
          },
          { exclusive: 'contract:nested' },
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        order.push('first ends');
      });
      await holding;
      const second = store.transaction(async () => order.push('second locked'), { exclusive: 'contract:nested' });
      await Promise.all([first, second]);
      expect(order).to.deep.equal(['first locked', 'first ends', 'second locked']);
    });

    it("runs the webhook worker's queries: due pending deliveries by date, a claim that only one taker wins, finished ones by status", async () => {
      await store.webhookDeliveries.insert(delivery('whd_1', { nextAttemptAt: new Date('2026-01-01T00:00:02Z') }));
      await store.webhookDeliveries.insert(delivery('whd_2', { nextAttemptAt: new Date('2026-01-01T00:00:01Z') }));
      await store.webhookDeliveries.insert(delivery('whd_3', { nextAttemptAt: new Date('2026-01-01T00:01:00Z') }));
      await store.webhookDeliveries.insert(delivery('whd_4', { status: 'delivered', nextAttemptAt: null }));
      const due = await store.webhookDeliveries.find({ status: 'pending', nextAttemptAt: { $lte: new Date('2026-01-01T00:00:30Z') } }, { sort: { nextAttemptAt: 1 }, limit: 5 });
      expect(due.map((d) => d.id)).to.deep.equal(['whd_2', 'whd_1']);
      const claim = () => store.webhookDeliveries.updateOne({ id: 'whd_2', status: 'pending', claims: 0 }, { $set: { nextAttemptAt: new Date('2026-01-01T00:05:00Z') }, $inc: { claims: 1 } });
      expect(await claim()).to.equal(true);
      expect(await claim()).to.equal(false);
      expect(await store.webhookDeliveries.findOne({ id: 'whd_2' })).to.deep.include({ claims: 1, nextAttemptAt: new Date('2026-01-01T00:05:00Z') });
      const finished = await store.webhookDeliveries.find({ companyId: 'cmp_a', endpointId: 'whk_1', status: { $in: ['delivered', 'failed'] } });
      expect(finished.map((d) => d.id)).to.deep.equal(['whd_4']);
      expect(await store.webhookDeliveries.deleteMany({ companyId: 'cmp_a', id: { $in: ['whd_1', 'whd_4'] } })).to.equal(2);
    });

    it('deletes one record', async () => {
      await store.endUsers.insert(endUser('eu_1'));
      expect(await store.endUsers.deleteOne({ id: 'eu_1' })).to.equal(true);
      expect(await store.endUsers.deleteOne({ id: 'eu_1' })).to.equal(false);
      expect(await store.endUsers.count({})).to.equal(0);
    });

    it('deletes every record matching', async () => {
      for (const id of ['eu_1', 'eu_2', 'eu_3']) await store.endUsers.insert(endUser(id, { isTestUser: id !== 'eu_2' }));
      expect(await store.endUsers.deleteMany({ isTestUser: true })).to.equal(2);
      expect((await store.endUsers.find({})).map((r) => r.id)).to.deep.equal(['eu_2']);
      expect(await store.endUsers.deleteMany({ isTestUser: true })).to.equal(0);
    });

    it('enforces unique ids, API key hashes and externalId per company', async () => {
      await store.endUsers.insert(endUser('eu_1'));
      await expectDuplicate(() => store.endUsers.insert(endUser('eu_1')));
      await store.endUsers.insert(endUser('eu_2', { externalId: 'x', externalKey: 'cmp_a:x' }));
      await expectDuplicate(() => store.endUsers.insert(endUser('eu_3', { externalId: 'x', externalKey: 'cmp_a:x' })));
      await store.endUsers.insert(endUser('eu_4', { companyId: 'cmp_b', externalId: 'x', externalKey: 'cmp_b:x' }));
      // Records without an externalId do not collide with each other.
      await store.endUsers.insert(endUser('eu_5'));
      const key = { companyId: 'cmp_a', userId: 'usr_1', name: 'k', prefix: 'igw_abcd', hash: 'h'.repeat(64), createdOn: new Date(), revokedOn: null };
      await store.apiKeys.insert({ id: 'key_1', ...key });
      await expectDuplicate(() => store.apiKeys.insert({ id: 'key_2', ...key }));
    });

    it('keeps one embedding settings record per company and finds companies by one of their allowed origins', async () => {
      const at = new Date('2026-01-01T00:00:00Z');
      const settings = (id: string, companyId: string, allowedOrigins: string[]) => ({ id, companyId, allowedOrigins, enabledApps: ['slack'], createdOn: at, updatedOn: at });
      await store.embeddingSettings.insert(settings('emb_1', 'cmp_a', ['https://a.example.com', 'http://localhost:3000']));
      await store.embeddingSettings.insert(settings('emb_2', 'cmp_b', ['https://b.example.com']));
      await expectDuplicate(() => store.embeddingSettings.insert(settings('emb_3', 'cmp_a', [])));
      expect((await store.embeddingSettings.find({ allowedOrigins: 'http://localhost:3000' })).map((r) => r.companyId)).to.deep.equal(['cmp_a']);
      expect(await store.embeddingSettings.count({ allowedOrigins: 'https://a.example.com:443' })).to.equal(0);
      expect(await store.embeddingSettings.findOne({ companyId: 'cmp_b' })).to.deep.include({ allowedOrigins: ['https://b.example.com'], enabledApps: ['slack'] });
    });

    it('keeps what was written across a close and reopen', async () => {
      await store.endUsers.insert(endUser('eu_1', { name: 'kept' }));
      await store.endUsers.updateOne({ id: 'eu_1' }, { $set: { email: 'k@e.test' } });
      await store.close();
      store = await reopen();
      expect(await store.endUsers.findOne({ id: 'eu_1' })).to.include({ name: 'kept', email: 'k@e.test' });
    });

    it('stores keys with dots, $, %, NUL, __proto__ and unicode, and arrays in arrays, exactly as given, across a reopen', async () => {
      const metadata = JSON.parse(
        '{"api.version":"2","$tier":"gold","100%":{"a.b":["$x"],"%2E":1},"ünï.cødé":{"日本":true},"nul\\u0000key":0,"__proto__":{"p":1},"constructor":{"name":"own"},"d":[[1,[2,{"k.k":[3]}]],[]]}',
      ) as Record<string, unknown>;
      await store.endUsers.insert(endUser('eu_1', { metadata }));
      await store.endUsers.insert(endUser('eu_2', { metadata: { ok: 1 } }));
      await store.endUsers.updateOne({ id: 'eu_2' }, { $set: { metadata: { ...metadata, 'then.set': true } } });
      // Key order is not kept (JSONB orders keys its own way); every key and value is.
      const sorted = (value: unknown): unknown =>
        Array.isArray(value) ? value.map(sorted) : value && typeof value === 'object' ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])])) : value;
      const expectKept = async () => {
        expect((await store.endUsers.findOne({ id: 'eu_1' }))!.metadata).to.deep.equal(metadata);
        expect(JSON.stringify(sorted((await store.endUsers.findOne({ id: 'eu_1' }))!.metadata))).to.equal(JSON.stringify(sorted(metadata)));
        expect((await store.endUsers.findOne({ id: 'eu_2' }))!.metadata).to.deep.equal({ ...metadata, 'then.set': true });
      };
      await expectKept();
      await store.close();
      store = await reopen();
      await expectKept();
    });

    it('answers filters whose values hold NUL: a text field never holds one (writes refuse it), a JSON value does and matches', async () => {
      await store.endUsers.insert(endUser('eu_1', { name: 'plain', metadata: { a: 'x\u0000y', tags: ['t\u0000', 'u'], n: 1 } }));
      await store.endUsers.insert(endUser('eu_2', { name: 'other', metadata: { a: 'xy' } }));
      const ids = async (filter: Record<string, unknown>) => (await store.endUsers.find(filter, { sort: { id: 1 } })).map((r) => r.id);
      expect(await store.endUsers.findOne({ id: '\u0000' })).to.equal(null);
      expect(await store.endUsers.findOne({ id: 'eu_1\u0000' })).to.equal(null);
      expect(await ids({ name: 'plain\u0000' })).to.deep.equal([]);
      expect(await ids({ name: { $ne: 'plain\u0000' } })).to.deep.equal(['eu_1', 'eu_2']);
      expect(await ids({ name: { $in: ['\u0000', 'other'] } })).to.deep.equal(['eu_2']);
      expect(await ids({ name: { $nin: ['\u0000', 'other'] } })).to.deep.equal(['eu_1']);
      expect(await ids({ name: { $gt: '\u0000' } })).to.deep.equal([]);
      expect(await ids({ name: { $like: '*\u0000*' } })).to.deep.equal([]);
      expect(await store.endUsers.count({ id: { $in: ['\u0000'] } })).to.equal(0);
      expect(await ids({ 'metadata.a': 'x\u0000y' })).to.deep.equal(['eu_1']);
      expect(await ids({ 'metadata.a': { $in: ['x\u0000y', 'xy'] } })).to.deep.equal(['eu_1', 'eu_2']);
      expect(await ids({ 'metadata.a': { $ne: 'x\u0000y' } })).to.deep.equal(['eu_2']);
      expect(await ids({ 'metadata.a': { $nin: ['x\u0000y'] } })).to.deep.equal(['eu_2']);
      expect(await ids({ 'metadata.tags': 't\u0000' })).to.deep.equal(['eu_1']);
      expect(await ids({ 'metadata.a': '\u0000' })).to.deep.equal([]);
    });

    it('filters on keys of objects by own fields only: a prototype name is never a field, a text has no fields', async () => {
      await store.endUsers.insert(endUser('eu_1', { metadata: { $tier: 'gold', 'ünï': { 日本: true }, constructor: { name: 'own' }, region: 'eu', tags: ['x', 'y'] } }));
      await store.endUsers.insert(endUser('eu_2', JSON.parse('{"metadata":{"__proto__":{"p":1},"region":"us"}}') as Partial<EndUserRecord>));
      await store.endUsers.insert(endUser('eu_3', { metadata: {} }));
      const ids = async (filter: Record<string, unknown>) => (await store.endUsers.find(filter, { sort: { id: 1 } })).map((r) => r.id);
      expect(await ids({ 'metadata.$tier': 'gold' })).to.deep.equal(['eu_1']);
      expect(await ids({ 'metadata.ünï.日本': true })).to.deep.equal(['eu_1']);
      expect(await ids({ 'metadata.constructor.name': 'own' })).to.deep.equal(['eu_1']);
      expect(await ids({ 'metadata.__proto__.p': 1 })).to.deep.equal(['eu_2']);
      expect(await ids({ 'metadata.tags': 'x' })).to.deep.equal(['eu_1']);
      for (const path of ['metadata.constructor.name', 'metadata.toString', 'metadata.hasOwnProperty', 'metadata.__proto__', 'metadata.valueOf', 'metadata.region.length', 'metadata.region.constructor.name', 'metadata.tags.length']) {
        expect(await ids({ [path]: { $exists: true } }), path).to.deep.equal(path === 'metadata.constructor.name' ? ['eu_1'] : path === 'metadata.__proto__' ? ['eu_2'] : []);
      }
      expect(await ids({ 'metadata.constructor.name': 'Object' })).to.deep.equal([]);
      expect(await ids({ 'metadata.region.length': 2 })).to.deep.equal([]);
      expect(await ids({ 'metadata.constructor.name': { $ne: 'own' } })).to.deep.equal(['eu_2', 'eu_3']);
      expect(await ids({ $or: [{ 'metadata.toString': { $in: [null] } }, { 'metadata.toString': { $exists: false } }] })).to.deep.equal(['eu_1', 'eu_2', 'eu_3']);
    });

    it('answers ping while open', async () => {
      await store.ping();
    });
  });
}

async function expectDuplicate(write: () => Promise<unknown>): Promise<void> {
  const error = await write().then(() => null, (e: unknown) => e);
  expect(error).to.be.instanceOf(DuplicateKeyError);
}
