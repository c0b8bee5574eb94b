/** The JSON Schemas of the webhook endpoints; requests are validated with them and the OpenAPI document is built from them. */
import { WEBHOOK_EVENT_TYPES } from './events.ts';

const url = { type: 'string', minLength: 1, maxLength: 2048, description: 'Where events are POSTed: https (http only for a host EGRESS_ALLOW admits); a host name must resolve, to an address the egress policy admits, when it is registered (else 400, rule resolve or egress); not port 0 (rule port).' } as const;
const events = {
  type: 'array',
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  items: { enum: WEBHOOK_EVENT_TYPES },
  description: 'The event types sent to this endpoint; empty or left out for every type.',
} as const;
const description = { type: 'string', maxLength: 256, description: 'Your note on what the endpoint is for.' } as const;

export const createWebhookBody = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: { url, events, description },
} as const;

export interface CreateWebhookBody {
  url: string;
  events?: string[];
  description?: string;
}

export const updateWebhookBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url,
    events,
    description: { type: ['string', 'null'], maxLength: 256, description: 'Your note; null clears it.' },
    enabled: { type: 'boolean', description: 'false stops deliveries (pending ones are given up); true sends new events again, also to an endpoint the gateway disabled after a 410.' },
  },
} as const;

export interface UpdateWebhookBody {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

const dateTime = { type: 'string', format: 'date-time' } as const;

export const webhookView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'events', 'description', 'enabled', 'disabledReason', 'createdOn', 'updatedOn'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { enum: WEBHOOK_EVENT_TYPES } },
    description: { type: ['string', 'null'] },
    enabled: { type: 'boolean' },
    disabledReason: { type: ['string', 'null'], description: 'Why the gateway disabled the endpoint: it answered 410 Gone, or every delivery failed for a whole WEBHOOK_RETRY_WINDOW_MS; null otherwise.' },
    createdOn: dateTime,
    updatedOn: dateTime,
  },
} as const;

/** The endpoint with its signing secret: answered by create and rotate-secret only. */
export const webhookWithSecret = {
  ...webhookView,
  required: [...webhookView.required, 'secret'],
  properties: {
    ...webhookView.properties,
    secret: { type: 'string', description: 'The signing secret (whsec_…): shown this once; keep it to verify Gateway-Signature.' },
  },
} as const;

export const deliveryView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'eventId', 'eventType', 'status', 'attempts', 'responseStatus', 'durationMs', 'error', 'nextAttemptAt', 'lastAttemptAt', 'createdOn', 'finishedOn'],
  properties: {
    id: { type: 'string' },
    eventId: { type: 'string', description: 'The Gateway-Event-Id header and the payload id: the same on every attempt.' },
    eventType: { enum: WEBHOOK_EVENT_TYPES },
    status: { enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer', minimum: 0 },
    responseStatus: { type: ['integer', 'null'], description: 'The status of the last answer; null when none came.' },
    durationMs: { type: ['integer', 'null'], description: 'How long the last attempt took.' },
    error: { type: ['string', 'null'], description: 'Why the last attempt failed. The response body is never kept.' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time', description: 'When it is next tried (pending); null once delivered or failed.' },
    lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    createdOn: dateTime,
    finishedOn: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;
