/** The events a webhook endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'connection.created',
  'connection.deleted',
  'connection.needs_reauthorization',
  'connection.reauthorized',
  'end_user.deleted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What changed: the connection as the API shows it (no secrets), or the end user's id. */
export type WebhookEventData = Record<string, unknown>;

export interface WebhookEvent {
  type: WebhookEventType;
  data: WebhookEventData;
}
