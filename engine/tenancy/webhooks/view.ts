import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../platform/store/index.ts';

/** What the API shows of an endpoint: everything but its secret. */
export function webhookView(record: WebhookEndpointRecord) {
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    description: record.description,
    enabled: record.enabled,
    disabledReason: record.disabledReason,
    createdOn: record.createdOn.toISOString(),
    updatedOn: record.updatedOn.toISOString(),
  };
}

/** What the API shows of a delivery: its outcome; neither the payload nor the receiver's answer body. */
export function deliveryView(record: WebhookDeliveryRecord) {
  return {
    id: record.id,
    eventId: record.eventId,
    eventType: record.eventType,
    status: record.status,
    attempts: record.attempts,
    responseStatus: record.responseStatus,
    durationMs: record.durationMs,
    error: record.error,
    nextAttemptAt: record.status === 'pending' && record.nextAttemptAt ? record.nextAttemptAt.toISOString() : null,
    lastAttemptAt: record.lastAttemptAt ? record.lastAttemptAt.toISOString() : null,
    createdOn: record.createdOn.toISOString(),
    finishedOn: record.finishedOn ? record.finishedOn.toISOString() : null,
  };
}
