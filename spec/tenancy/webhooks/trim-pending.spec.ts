import { expect } from 'chai';
import { pino } from 'pino';
import { openStore, type Store, type WebhookDeliveryRecord } from '../../../engine/platform/store/index.ts';
import { trimPending } from '../../../engine/tenancy/webhooks/unsent.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const COMPANY = 'cmp_trim';
const ENDPOINT = 'whe_trim';

function delivery(n: number): WebhookDeliveryRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n));
  return {
    id: `whd_${String(n).padStart(3, '0')}`,
    companyId: COMPANY,
    endpointId: ENDPOINT,
    eventId: `evt_${n}`,
    eventType: 'connection.created',
    payload: '{}',
    status: 'pending',
    attempts: 0,
    claims: 0,
    nextAttemptAt: at,
    giveUpAt: new Date(at.getTime() + 86_400_000),
    lastAttemptAt: null,
    responseStatus: null,
    durationMs: null,
    error: null,
    createdOn: at,
    updatedOn: at,
    finishedOn: null,
  };
}

/**
 * Two writers of a burst trim the same endpoint at once (unsent.ts, trimPending). One of them is held after its
 * first read of the store until the other has finished: what it read is stale by then. The endpoint must be left
 * with exactly WEBHOOK_MAX_PENDING pending, the newest, not fewer (CI once found 4 of 5).
 */
describe('trimming an endpoint to WEBHOOK_MAX_PENDING while another writer trims it', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => Promise<void>;

  before(async () => {
    const tmp = await tempDir();
    cleanup = tmp.cleanup;
    store = await openStore({ dataDir: tmp.dir, mongodbUri: undefined, pgliteTemplateDir: process.env.PGLITE_TEMPLATE_DIR });
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('leaves the newest max pending when one writer read before the other dropped', async () => {
    for (let n = 1; n <= 7; n++) await store.webhookDeliveries.insert(delivery(n));
    const services = (webhookDeliveries: Store['webhookDeliveries']) => ({
      store: { ...store, webhookDeliveries } as Store,
      metrics: undefined,
      config: { webhooks: { maxPending: 5, deliveriesKept: 1_000 } },
      logger: pino({ level: 'silent' }),
    });
    // The held writer: after its first call to the store, its next calls wait for the gate.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let calls = 0;
    const held = new Proxy(store.webhookDeliveries, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (calls++ > 0) await gate;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const first = trimPending(services(held) as never, COMPANY, ENDPOINT);
    while (calls === 0) await new Promise((resolve) => setImmediate(resolve));
    await trimPending(services(store.webhookDeliveries) as never, COMPANY, ENDPOINT);
    open();
    await first;
    const pending = await store.webhookDeliveries.find({ companyId: COMPANY, endpointId: ENDPOINT, status: 'pending' }, { sort: { createdOn: 1 } });
    expect(pending.map((d) => d.id)).to.deep.equal(['whd_003', 'whd_004', 'whd_005', 'whd_006', 'whd_007']);
  });
});
