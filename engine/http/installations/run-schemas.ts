import { anyJsonValue } from '../../platform/validation/json-value.ts';

/**
 * The JSON Schemas of POST /v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run.
 * Documented with the v1 surface now; its handler comes with the run issue,
 * which validates requests with these same schemas.
 */
export const runPathParameters = {
  appId: { type: 'string', minLength: 1, maxLength: 128, description: 'The app id.' },
  appVersion: {
    type: 'string',
    pattern: '^(published|draft|[0-9]+)$',
    description: 'published, draft, or a version number.',
    examples: ['published', 'draft', '3'],
  },
  actionId: { type: 'string', minLength: 1, maxLength: 128, description: 'The action id within the app version.' },
} as const;

export const runInstallationActionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['installationId'],
  properties: {
    installationId: { type: 'string', minLength: 1, maxLength: 128, description: 'The installation whose credentials the action runs with.' },
    actionArguments: { type: 'object', additionalProperties: anyJsonValue, description: "The action's arguments by key: each argument's value, as its dataType says." },
  },
} as const;

/** The common envelope every action result comes back in. */
export const actionEnvelope = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'data', 'meta'],
  properties: {
    success: { type: 'boolean', description: 'true when the action succeeded, false when it failed.' },
    data: { type: 'array', description: 'The results; an empty array when there are none.', items: anyJsonValue },
    meta: {
      type: 'object',
      description: 'About the run. retries, response and action are the engine\'s and always sent; a mapping may add keys of its own.',
      additionalProperties: anyJsonValue,
      required: ['retries', 'response', 'action'],
      properties: {
        authenticated: { type: 'boolean', description: 'false when the app did not accept the credentials.' },
        cursor: { type: 'string', description: 'Send it back as the cursor argument to fetch the next page.' },
        tooManyRequests: { type: 'boolean', description: 'true when the app rate-limited the run.' },
        retries: { type: 'integer', minimum: 0, description: 'How many times the call was retried after a rate limit.' },
        response: {
          type: 'object',
          description: "The app's response to the last attempt.",
          additionalProperties: false,
          required: ['status', 'headers', 'body'],
          properties: {
            status: { type: 'integer', description: 'Its HTTP status.' },
            headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Its headers: lower-case names, repeated ones joined with ", ".' },
            body: { description: 'Its body: parsed JSON, the text, or null when empty.' },
          },
        },
        action: {
          type: 'object',
          description: 'What was run.',
          additionalProperties: false,
          required: ['id', 'slug', 'operation', 'query', 'body'],
          properties: {
            id: { type: 'string' },
            slug: { type: 'string' },
            operation: { enum: ['list', 'get', 'create', 'update', 'delete', 'search', 'other'] },
            query: { type: 'object', additionalProperties: anyJsonValue, description: 'The query parameters sent.' },
            body: { description: 'The body sent; null without one.' },
          },
        },
        appError: {
          type: 'object',
          description:
            "The app's own error, sent exactly when the app call failed (success false, including a 401 and a 429 given up on); never on a success, nor when the run failed inside the gateway (then meta.error). code and message come from the action's mapping, else the API's default appError mapping, else the engine: HTTP_<status> and the status' reason phrase, or APP_ERROR for a 2xx the mapping called a failure.",
          additionalProperties: false,
          required: ['status', 'code', 'message'],
          properties: {
            status: { type: 'integer', description: "The app's HTTP status (of the last attempt)." },
            code: { type: 'string', maxLength: 500, description: "The app's error code, e.g. card_declined, channel_not_found or HTTP_404." },
            message: { type: 'string', maxLength: 500, description: "The app's error message, or the status' reason phrase." },
            details: { description: 'More of what the app said, as its definition picks it: an object or array of at most 4,000 characters of JSON.', anyOf: [{ type: 'object', additionalProperties: anyJsonValue }, { type: 'array', items: anyJsonValue }] },
          },
        },
        error: {
          type: 'object',
          description: 'Why the run failed inside the gateway (MAPPING_ERROR on a 502); details say where and why.',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            details: { type: 'object', additionalProperties: anyJsonValue },
          },
        },
      },
    },
  },
} as const;
