/** JSON Schemas of the connection endpoints: requests are validated with them, the OpenAPI document is built from them. */
const hostVariables = {
  type: 'object',
  maxProperties: 50,
  additionalProperties: { type: ['string', 'number', 'boolean'] },
  description: 'Host variables of the connection (a subdomain, a region): the values of the API arguments of the app version. Not secret: returned by the API. At most 16384 bytes as JSON.',
} as const;

export const createConnectionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['appSlug'],
  properties: {
    appSlug: { type: 'string', minLength: 1, maxLength: 100, description: 'The app the connection is to.' },
    authId: { type: 'string', minLength: 1, maxLength: 100, description: "The auth definition to use; the app version's default auth when omitted." },
    endUserId: { type: 'string', minLength: 1, maxLength: 100, description: 'The end user who owns the account, if any.' },
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'A name to recognise the connection by.' },
    credentials: {
      type: 'object',
      maxProperties: 50,
      // Checked against the auth's arguments by the handler (unknown keys are problems there).
      additionalProperties: true,
      description: "Values of the auth's arguments (an API key, a password), or tokens for an OAuth 2.0 auth. Stored encrypted; never returned. At most 65536 bytes as JSON.",
    },
    metadata: hostVariables,
  },
} as const;

export const updateConnectionBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: createConnectionBody.properties.name,
    credentials: {
      type: 'object',
      maxProperties: 50,
      // Checked against the auth's arguments by the handler (unknown keys are problems there).
      additionalProperties: true,
      description:
        "Replaces the credentials whole: the auth's arguments, the tokens of an OAuth 2.0 authorization-code auth, or the clientId and clientSecret of a client-credentials auth, checked as on create. Stored encrypted; never returned. Makes a connection marked needs_reauthorization active again.",
    },
    metadata: { ...hostVariables, description: `${hostVariables.description} Replaces the metadata whole; makes the connection active again.` },
  },
} as const;

export interface UpdateConnectionBody {
  name?: string;
  credentials?: Record<string, unknown>;
  metadata?: Record<string, string | number | boolean>;
}

export interface CreateConnectionBody {
  appSlug: string;
  authId?: string;
  endUserId?: string;
  name?: string;
  credentials?: Record<string, unknown>;
  metadata?: Record<string, string | number | boolean>;
}

export const connectionView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'appId', 'appSlug', 'authId', 'authType', 'endUserId', 'name', 'accountLabel', 'metadata', 'status', 'tokenExpiresAt', 'createdOn', 'updatedOn'],
  properties: {
    id: { type: 'string' },
    appId: { type: 'string' },
    appSlug: { type: 'string' },
    authId: { type: 'string' },
    authType: { type: 'string' },
    endUserId: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
    accountLabel: {
      type: ['string', 'null'],
      description: "Who the account is at the app (a login, a workspace name), from the auth's verification request when the credentials were checked, or the account chosen on an OAuth connection; null when the app says nothing.",
    },
    metadata: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
    status: { enum: ['active', 'needs_reauthorization'] },
    tokenExpiresAt: { type: ['string', 'null'], format: 'date-time' },
    createdOn: { type: 'string', format: 'date-time' },
    updatedOn: { type: 'string', format: 'date-time' },
  },
} as const;
