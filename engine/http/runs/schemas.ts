import { anyJsonValue } from '../../platform/validation/json-value.ts';

/** JSON Schema of POST /v2/universal/apps/{appSlug}/actions/{actionSlug}/run: the handler validates with it, the v2 document shows it. */
export const universalRunBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    connectionId: { type: 'string', minLength: 1, maxLength: 128, description: 'The connection whose credentials the action runs with.' },
    installationId: { type: 'string', minLength: 1, maxLength: 128, description: "Instead of connectionId: the installation whose connection for this app is used." },
    arguments: { type: 'object', additionalProperties: anyJsonValue, description: "The action's arguments by key; may be empty." },
  },
} as const;
