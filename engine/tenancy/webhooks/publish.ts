import { newId } from '../../platform/ids.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import type { WebhookDeliveryRecord } from '../../platform/store/index.ts';
import type { WebhookEvent } from './events.ts';
import { trimPending } from './unsent.ts';

/**
 * Records an event for every enabled endpoint of the company that takes its
 * type: one pending delivery each, in the outbox (the webhookDeliveries
 * collection). Called by the request that made the change, after the change
 * is written and before it is answered, so an answered change has its
 * deliveries on disk (the embedded store fsyncs each write) and a restart,
 * even after kill -9, sends them. Then it wakes this process's worker.
 * An endpoint holds at most WEBHOOK_MAX_PENDING pending deliveries: past
 * them, the oldest are dropped (unsent.ts).
 * Answers the event id.
 */
export async function publishEvent(services: TenancyServices, companyId: string, event: WebhookEvent): Promise<string> {
  const eventId = newId('evt');
  const endpoints = await services.store.webhookEndpoints.find({ companyId, enabled: true });
  const takers = endpoints.filter((endpoint) => endpoint.events.length === 0 || endpoint.events.includes(event.type));
  if (takers.length === 0) return eventId;
  const now = new Date();
  const payload = JSON.stringify({ id: eventId, type: event.type, createdOn: now.toISOString(), companyId, data: event.data });
  for (const endpoint of takers) {
    const delivery: WebhookDeliveryRecord = {
      id: newId('whd'),
      companyId,
      endpointId: endpoint.id,
      eventId,
      eventType: event.type,
      payload,
      status: 'pending',
      attempts: 0,
      claims: 0,
      nextAttemptAt: now,
      giveUpAt: new Date(now.getTime() + services.config.webhooks.retryWindowMs),
      lastAttemptAt: null,
      responseStatus: null,
      durationMs: null,
      error: null,
      createdOn: now,
      updatedOn: now,
      finishedOn: null,
    };
    await services.store.webhookDeliveries.insert(delivery);
    await trimPending(services, companyId, endpoint.id);
  }
  services.webhookWorker?.wake();
  return eventId;
}
