import { expect } from 'chai';
import { bootstrap } from '../../../engine/tenancy/companies/bootstrap.ts';
import { findActiveApiKey } from '../../../engine/tenancy/api-keys/api-keys.ts';
import { openEmbeddedStore } from '../../../engine/platform/store/embedded/nedb-store.ts';
import { openPgliteStore } from '../../../engine/platform/store/sql/open-pglite.ts';
import type { Store } from '../../../engine/platform/store/index.ts';
import { call, startTestGateway } from '../../helpers/gateway.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { spawnGateway } from '../../helpers/process.ts';

const KEY = 'bootstrap-resume-key-0123456789';

/** The store as a process killed right after one write would have left it: the write lands, then "the process dies". */
function killedAfterInsertInto(store: Store, collection: 'companies' | 'members' | 'apiKeys'): Store {
  const real = store[collection];
  const crashing = new Proxy(real, {
    get(target, prop) {
      if (prop === 'insert') return async (record: never) => {
        await target.insert(record);
        throw new Error(`killed after the ${collection} write`);
      };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return new Proxy(store, { get: (target, prop) => (prop === collection ? crashing : Reflect.get(target, prop, target)) });
}

describe('bootstrap', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  for (const collection of ['companies', 'members', 'apiKeys'] as const) {
    it(`leaves nothing when a bootstrap is killed right after the ${collection} write (one transaction); the next start bootstraps: BOOTSTRAP_API_KEY answers 200, one company`, async () => {
      const store = await openPgliteStore(dir, { queryTimeoutMs: 5_000, templateDir: process.env.PGLITE_TEMPLATE_DIR });
      const error = await bootstrap(killedAfterInsertInto(store, collection), KEY).then(() => null, (e: Error) => e);
      expect(error?.message).to.equal(`killed after the ${collection} write`);
      expect([await store.companies.count({}), await store.members.count({}), await store.apiKeys.count({})]).to.deep.equal([0, 0, 0]);
      await store.close();

      const gw = await startTestGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY });
      try {
        const users = await call(gw, 'GET', '/v1/users');
        expect(users.status).to.equal(200);
        expect(users.body.data).to.have.length(1);
        const companies = await call(gw, 'GET', '/v1/companies');
        expect(companies.body.data.map((c: { name: string; memberCount: number }) => [c.name, c.memberCount])).to.deep.equal([['Default', 1]]);
      } finally {
        await gw.stop({ keepData: true });
      }
    });

    it(`finishes, on a store without transactions (NeDB, as MongoDB), a bootstrap killed right after the ${collection} write: the key works, one company`, async () => {
      const store = await openEmbeddedStore(dir);
      try {
        const error = await bootstrap(killedAfterInsertInto(store, collection), KEY).then(() => null, (e: Error) => e);
        expect(error?.message).to.equal(`killed after the ${collection} write`);
        // The next start, once the mark is older than the grace a live start delivering its key gets (0 here).
        const again = await bootstrap(store, KEY, { pendingGraceMs: 0 });
        expect(again).to.deep.include({ kind: 'created', resumed: true });
        expect(await findActiveApiKey(store, KEY)).not.to.equal(null);
        expect((await store.companies.find({})).map((c) => [c.name, c.memberCount, c.bootstrapPending])).to.deep.equal([['Default', 1, undefined]]);
      } finally {
        await store.close();
      }
    });
  }

  it('issues a new generated key, and revokes the first, when the first was never delivered (killed before it was shown)', async () => {
    const store = await openEmbeddedStore(dir);
    try {
      const first = await bootstrap(store, undefined);
      expect(first.kind).to.equal('created');
      const firstKey = (first as { generatedKey: string }).generatedKey;
      // No delivered(): the process died before the key reached a terminal or its file (the grace is over: 0).
      const second = await bootstrap(store, undefined, { pendingGraceMs: 0 });
      expect(second.kind).to.equal('created');
      const secondKey = (second as { generatedKey: string }).generatedKey;
      expect(secondKey).to.match(/^igw_/).and.not.equal(firstKey);
      expect(await findActiveApiKey(store, firstKey)).to.equal(null);
      expect(await findActiveApiKey(store, secondKey)).not.to.equal(null);
      await (second as { delivered(): Promise<void> }).delivered();
      expect((await bootstrap(store, undefined)).kind, 'delivered: done for good').to.equal('skipped');
      expect(await store.companies.count({})).to.equal(1);
    } finally {
      await store.close();
    }
  });

  it('waits for another start that is delivering its generated key, and leaves that key alone: two gateways starting at once on an empty store', async () => {
    const store = await openPgliteStore(dir, { queryTimeoutMs: 5_000, templateDir: process.env.PGLITE_TEMPLATE_DIR });
    try {
      const first = await bootstrap(store, undefined);
      expect(first.kind).to.equal('created');
      const firstKey = (first as { generatedKey: string }).generatedKey;
      // The second start, while the first writes its key file: it must not take the first for abandoned.
      const second = bootstrap(store, undefined, { pendingGraceMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await (first as { delivered(): Promise<void> }).delivered();
      expect((await second).kind).to.equal('skipped');
      expect(await findActiveApiKey(store, firstKey)).not.to.equal(null);
      expect(await store.apiKeys.count({})).to.equal(1);
    } finally {
      await store.close();
    }
  });

  it('warns when BOOTSTRAP_API_KEY is set but ignored because the store has a company, and not when it is already a key of the store', async () => {
    const first = await startTestGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY });
    await first.stop({ keepData: true });
    const same = await startTestGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY });
    expect(same.logs()).not.to.include('BOOTSTRAP_API_KEY');
    await same.stop({ keepData: true });

    const other = await startTestGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: 'another-bootstrap-key-9876543210' });
    try {
      expect((await call(other, 'GET', '/v1/users')).status).to.equal(401);
      const warning = other.logs().split('\n').find((line) => line.includes('BOOTSTRAP_API_KEY is set but ignored'));
      expect(warning, other.logs()).to.not.equal(undefined);
      expect(JSON.parse(warning!).level).to.equal(40);
      expect(warning).not.to.include('another-bootstrap-key');
    } finally {
      await other.stop({ keepData: true });
    }
  });

  it('says on the terminal (stderr, a sentence, not only a JSON line) when a BOOTSTRAP_API_KEY given to `npm start` is ignored, and what to do', async function () {
    this.timeout(240_000);
    const first = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY }, 60_000);
    first.child.kill('SIGTERM');
    await first.exited;
    expect(first.stderr()).not.to.include('BOOTSTRAP_API_KEY');
    const again = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY }, 60_000);
    again.child.kill('SIGTERM');
    await again.exited;
    expect(again.stderr(), 'the key is one of the store\'s: nothing to say').not.to.include('BOOTSTRAP_API_KEY');

    const other = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: 'another-bootstrap-key-9876543210' }, 60_000);
    try {
      expect((await fetch(`${other.url}/v1/users`, { headers: { authorization: 'Bearer another-bootstrap-key-9876543210' } })).status).to.equal(401);
      const said = other.stderr();
      expect(said).to.include(`BOOTSTRAP_API_KEY is ignored: the store in DATA_DIR (${dir}) already has a company`);
      expect(said).to.include('requests with this key answer 401');
      expect(said).to.include('start with an empty DATA_DIR');
      expect(said).not.to.include('another-bootstrap-key');
      expect(said.trim().startsWith('{'), 'a sentence, not a JSON log line').to.equal(false);
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  });
});
