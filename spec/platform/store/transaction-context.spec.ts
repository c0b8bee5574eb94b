import { expect } from 'chai';
import { executionAsyncResource } from 'node:async_hooks';
import { openPgliteStore } from '../../../engine/platform/store/sql/open-pglite.ts';
import type { CompanyRecord, Store } from '../../../engine/platform/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * Whether Node follows every promise (a promise hook on: then the code after an await runs in the promise as
 * its async resource; with none, in the resource around it). An AsyncLocalStorage turns it on while enabled.
 */
async function promisesFollowed(): Promise<boolean> {
  await null;
  return executionAsyncResource() instanceof Promise;
}

const company = (id: string, name: string): CompanyRecord => ({
  id,
  name,
  description: null,
  isPersonal: false,
  timezone: 'UTC',
  settings: {},
  isDeleted: false,
  createdOn: new Date(),
  updatedOn: new Date(),
  plan: 'free',
  billingSubscriptionProductId: null,
  subscriptionIsLegacy: false,
  subscriptionUpdatedOn: null,
  memberCount: 0,
});

/**
 * The SQL store finds a transaction's connection through an AsyncLocalStorage. On Node 20 a storage that has
 * run keeps a hook on every promise the process makes afterwards, which every request then pays for (the
 * bootstrap's transaction at start switched it on for good): the store switches it off when no transaction
 * is open. (Node 24 carries contexts another way, without a promise hook: there this holds trivially.)
 */
describe('the SQL store, after a transaction', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => Promise<void>;

  before(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    store = await openPgliteStore(dir, { queryTimeoutMs: 5_000, templateDir: process.env.PGLITE_TEMPLATE_DIR });
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('stops following every promise once no transaction is open, and still joins nested work to an open one', async () => {
    const seen = await store.transaction(async () => {
      await store.companies.insert(company('cmp_000000000000000000000001', 'Inside'));
      // Work begun inside joins the open transaction and sees its write.
      return await store.transaction(async () => await store.companies.count({}));
    });
    expect(seen).to.equal(1);
    expect(await promisesFollowed()).to.equal(false);
    await store
      .transaction(async () => {
        await store.companies.insert(company('cmp_000000000000000000000002', 'Rolled back'));
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await store.companies.count({})).to.equal(1);
    expect(await promisesFollowed()).to.equal(false);
  });

  it('runs work a finished transaction left behind (a timer started inside it) on the store, not on that transaction, while another is open', async () => {
    let later: Promise<number> | undefined;
    const started = new Promise<void>((resolve) => {
      void store.transaction(async () => {
        // What a worker woken inside a request's transaction does: its next pass is a timer, begun in this context.
        setTimeout(() => {
          later = store.companies.count({});
          resolve();
        }, 100);
      });
    });
    // Another transaction open when the timer fires: the store's context is on, and the first transaction has ended.
    const other = store.transaction(() => new Promise((resolve) => setTimeout(resolve, 300)));
    await started;
    expect(await later!).to.equal(1);
    await other;
  });
});
