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

/** How many times trimPending reads and drops again when a drop lost a race with an attempt. */
const TRIM_ROUNDS = 3;
/** The most one round of trimPending drops: a burst of events is trimmed by each of its writers as it goes. */
const TRIM_BATCH = 1_000;

/**
 * Holds the endpoint to WEBHOOK_MAX_PENDING pending deliveries, called after each one is written: when more
 * are pending (a receiver down or hanging while events keep coming), the oldest are dropped so that the
 * newest events are the ones kept. Read after the write, not before: events written at once each see
 * the others, so a burst leaves the endpoint at the bound, neither past it nor under it (writers that find the
 * same ones past the newest `max` drop each once: the drop is a compare-and-set). Without it, the outbox of an endpoint that never
 * answers grew with every event for the whole retry window, and the store with it.
 */
export async function trimPending(services: Pick<TenancyServices, 'store' | 'metrics' | 'config' | 'logger'>, companyId: string, endpointId: string): Promise<void> {
  const max = services.config.webhooks.maxPending;
  let dropped = 0;
  // Again while some were not dropped: an attempt claimed one between the read and the drop (its claims moved on).
  for (let round = 0; round < TRIM_ROUNDS; round++) {
    // The pending ones older than the newest `max`, not "as many of the oldest as the count is over": a count read
    // before another writer's drop made each writer of a burst drop its own oldest too, leaving fewer than `max`
    // (CI, under load: 4 of 5). Every writer names the same set, so each is dropped once, and the newest `max` stay.
    const oldest = await services.store.webhookDeliveries.find({ companyId, endpointId, status: 'pending' }, { sort: { createdOn: -1, id: -1 }, skip: max, limit: TRIM_BATCH });
    if (oldest.length === 0) break;
    const now = await dropUnsent(services, oldest, `dropped unsent: ${max} deliveries were already pending for this endpoint (WEBHOOK_MAX_PENDING)`, 'max_pending');
    dropped += now;
    if (now === oldest.length) break;
  }
  if (dropped) {
    services.logger.warn({ endpointId, companyId, dropped, maxPending: max }, 'webhook deliveries dropped: the endpoint has WEBHOOK_MAX_PENDING pending (its receiver is not keeping up); the oldest went unsent');
  }
}
