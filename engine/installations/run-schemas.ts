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
    actionArguments: { type: 'object', description: "The action's arguments by key." },
  },
} as const;

/** The common envelope every action result comes back in. */
export const actionEnvelope = {
  type: 'object',
  required: ['success', 'data', 'meta'],
  properties: {
    success: { type: 'boolean', description: 'true when the action succeeded, false when it failed.' },
    data: { type: 'array', description: 'The results; an empty array when there are none.', items: {} },
    meta: {
      type: 'object',
      description: 'About the run: authenticated, cursor, tooManyRequests, retries, response, action.',
      properties: {
        authenticated: { type: 'boolean' },
        cursor: { type: 'string' },
        tooManyRequests: { type: 'boolean' },
        retries: { type: 'integer', minimum: 0 },
        response: { type: 'object' },
        action: { type: 'object' },
      },
    },
  },
} as const;
