/** The JSON Schemas of the end-user endpoints; requests are validated with them and the OpenAPI document is built from them. */
import { METADATA_MAX_BYTES } from '../../platform/validation/json-limits.ts';
import { anyJsonValue } from '../../platform/validation/json-value.ts';

export { METADATA_MAX_BYTES };

export const createEndUserBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    externalId: { type: 'string', minLength: 1, maxLength: 256, description: "The customer's own id for the person; unique within the company." },
    name: { type: 'string', maxLength: 256, description: 'Display name.' },
    email: { type: 'string', format: 'email', maxLength: 320, description: 'Email address.' },
    isTestUser: { type: 'boolean', description: "true links the end user to the customer's workspace for testing (may run draft app versions)." },
    metadata: {
      type: 'object',
      maxProperties: 100,
      additionalProperties: anyJsonValue,
      description: `Per-end-user host variables used when exchanging credentials; at most 100 keys and ${METADATA_MAX_BYTES} bytes as JSON.`,
    },
  },
} as const;

export interface CreateEndUserBody {
  externalId?: string;
  name?: string;
  email?: string;
  isTestUser?: boolean;
  metadata?: Record<string, unknown>;
}

/** POST /v1/users answers the new end user's id, or the existing one's for a known externalId (200 both). */
export const createEndUserResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'data'],
  properties: {
    success: { const: true },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['userId'],
      properties: { userId: { type: 'string', description: 'The end user id; use it in GET /v1/users/{userId}/token.' } },
    },
  },
} as const;

/**
 * PATCH /v2/end-users/{endUserId}: the fields given are replaced (metadata
 * whole), checked with the same rules as POST /v1/users; name and email may
 * be null to clear them. externalId cannot change: it is how the customer
 * finds the person again.
 */
export const updateEndUserBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { ...createEndUserBody.properties.name, type: ['string', 'null'], description: 'Display name; null clears it.' },
    email: { ...createEndUserBody.properties.email, type: ['string', 'null'], description: 'Email address; null clears it.' },
    isTestUser: createEndUserBody.properties.isTestUser,
    metadata: { ...createEndUserBody.properties.metadata, description: `${createEndUserBody.properties.metadata.description} Replaces the metadata whole.` },
  },
} as const;

export interface UpdateEndUserBody {
  name?: string | null;
  email?: string | null;
  isTestUser?: boolean;
  metadata?: Record<string, unknown>;
}

/** DELETE /v2/end-users/{endUserId}: what went with the end user. */
export const deletedEndUser = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'deleted', 'connectionsDeleted', 'installationsDeleted'],
  properties: {
    id: { type: 'string', description: 'The end user id.' },
    deleted: { const: true },
    connectionsDeleted: { type: 'integer', minimum: 0, description: "How many of the end user's connections (and their credentials) this request deleted." },
    installationsDeleted: { type: 'integer', minimum: 0, description: "How many of the end user's installations this request deleted." },
  },
} as const;
