import { anyJsonValue } from '../../platform/validation/json-value.ts';

/** JSON Schema of POST /v2/end-user/apps/{appSlug}/actions/{actionSlug}/run: the handler validates with it, the v2 document shows it. */
export const endUserRunBody = {
  type: 'object',
  additionalProperties: false,
  required: ['connectionId'],
  properties: {
    connectionId: { type: 'string', minLength: 1, maxLength: 128, description: "One of the end user's own connections (GET /v2/end-user/connections): the credentials the action runs with." },
    arguments: { type: 'object', additionalProperties: anyJsonValue, description: "The action's arguments by key; may be empty." },
  },
} as const;

export interface EndUserRunBody {
  connectionId: string;
  arguments?: Record<string, unknown>;
}
