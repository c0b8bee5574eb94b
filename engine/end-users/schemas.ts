/** The JSON Schemas of the end-user endpoints; requests are validated with them and the OpenAPI document is built from them. */
import { METADATA_MAX_BYTES } from '../validation/json-limits.ts';
import { anyJsonValue } from '../validation/json-value.ts';

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
