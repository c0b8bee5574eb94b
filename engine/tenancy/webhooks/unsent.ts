import type { TenancyServices } from '../tenancy-services.ts';
import type { WebhookDeliveryRecord } from '../../platform/store/index.ts';
import { pruneHistory } from './history.ts';

/** Why deliveries were dropped unsent: the label of gateway_webhook_deliveries_dropped_total. */
export type DropReason = 'max_pending' | 'endpoint_disabled';

/**
 * Finishes pending deliveries without sending them: `failed`, with `error` saying why, kept in the
 * endpoint's history like any finished delivery (and pruned with it). Each is written with a
 * compare-and-set on its claims, bumped, so an attempt in flight for it (another worker, another gateway)
 * cannot write its outcome over the drop. Answers how many were dropped.
 */
export async function dropUnsent(services: Pick<TenancyServices, 'store' | 'metrics' | 'config'>, deliveries: readonly WebhookDeliveryRecord[], error: string, reason: DropReason): Promise<number> {
  let dropped = 0;
  const now = new Date();
  for (const delivery of deliveries) {
    const written = await services.store.webhookDeliveries.updateOne(
      { id: delivery.id, status: 'pending', claims: delivery.claims },
      { $set: { status: 'failed', nextAttemptAt: null, updatedOn: now, finishedOn: now, error }, $inc: { claims: 1 } },
    );
    if (written) dropped++;
  }
  if (dropped) {
    services.metrics?.webhookDeliveriesDropped.inc({ reason }, dropped);
    const { companyId, endpointId } = deliveries[0]!;
    await pruneHistory(services, companyId, endpointId, services.config.webhooks.deliveriesKept);
  }
  return dropped;
}

/**
 * Makes room for one more pending delivery of the endpoint: when WEBHOOK_MAX_PENDING are pending already
 * (a receiver down or hanging while events keep coming), the oldest are dropped so that the newest events
 * are the ones kept. Without it, the outbox of an endpoint that never answers grew with every event for
 * the whole retry window, and the store with it.
 */
export async function makeRoomFor(services: Pick<TenancyServices, 'store' | 'metrics' | 'config' | 'logger'>, companyId: string, endpointId: string): Promise<void> {
  const max = services.config.webhooks.maxPending;
  const pending = await services.store.webhookDeliveries.count({ companyId, endpointId, status: 'pending' });
  if (pending < max) return;
  const oldest = await services.store.webhookDeliveries.find({ companyId, endpointId, status: 'pending' }, { sort: { createdOn: 1 }, limit: pending - max + 1 });
  const dropped = await dropUnsent(services, oldest, `dropped unsent: ${max} deliveries were already pending for this endpoint (WEBHOOK_MAX_PENDING)`, 'max_pending');
  if (dropped) {
    services.logger.warn({ endpointId, companyId, dropped, maxPending: max }, 'webhook deliveries dropped: the endpoint has WEBHOOK_MAX_PENDING pending (its receiver is not keeping up); the oldest went unsent');
  }
}
