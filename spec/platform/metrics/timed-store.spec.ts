import { expect } from 'chai';
import { createGatewayMetrics } from '../../../engine/platform/metrics/gateway-metrics.ts';
import { timedStore } from '../../../engine/platform/metrics/timed-store.ts';
import { openEmbeddedStore } from '../../../engine/platform/store/embedded/nedb-store.ts';
import { DuplicateKeyError, type Store } from '../../../engine/platform/store/index.ts';
import { sampleValue } from '../../helpers/prometheus.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

describe('the timed Store (a decorator over the port, for gateway_store_operation_duration_seconds)', () => {
  let raw: Store;
  let store: Store;
  let metrics: ReturnType<typeof createGatewayMetrics>;
  let cleanup: () => Promise<void>;
  const count = async (collection: string, operation: string) =>
    sampleValue(await metrics.registry.metrics(), 'gateway_store_operation_duration_seconds_count', { collection, operation });
  beforeEach(async () => {
    const temp = await tempDir();
    cleanup = temp.cleanup;
    raw = await openEmbeddedStore(temp.dir);
    metrics = createGatewayMetrics();
    store = timedStore(raw, metrics);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('times each operation by collection and operation, and answers what the adapter answers', async () => {
    const company = { id: 'cmp_1', name: 'Acme', createdOn: new Date(), updatedOn: new Date() } as never;
    await store.companies.insert(company);
    expect((await store.companies.findOne({ id: 'cmp_1' }))?.name).to.equal('Acme');
    expect(await store.companies.count({})).to.equal(1);
    expect(await store.companies.updateOne({ id: 'cmp_2' }, { $set: { name: 'x' } as never })).to.equal(false);
    await store.ping();
    expect(await count('companies', 'insert')).to.equal(1);
    expect(await count('companies', 'findOne')).to.equal(1);
    expect(await count('companies', 'count')).to.equal(1);
    expect(await count('companies', 'updateOne')).to.equal(1);
    expect(await count('store', 'ping')).to.equal(1);
    expect(await count('members', 'find')).to.equal(undefined);
  });

  it('times a failed operation too, and rethrows its error unchanged', async () => {
    const key = { id: 'key_1', hash: 'h', companyId: 'cmp_1', userId: 'usr_1', revokedOn: null } as never;
    await store.apiKeys.insert(key);
    const failed = await store.apiKeys.insert({ ...(key as object), id: 'key_2' } as never).then(() => null, (error: unknown) => error);
    expect(failed).to.be.instanceOf(DuplicateKeyError);
    expect(await count('apiKeys', 'insert')).to.equal(2);
  });

  it('passes the rest through: kind, and writeCount as the adapter counts it (the caches rely on it), the same collection object each time', async () => {
    expect(store.kind).to.equal('nedb');
    const before = store.connections.writeCount;
    expect(before).to.be.a('number').and.equal(raw.connections.writeCount);
    await store.connections.insert({ id: 'con_1', companyId: 'cmp_1' } as never);
    expect(store.connections.writeCount).to.equal(before! + 1);
    expect(store.connections).to.equal(store.connections);
  });
});
