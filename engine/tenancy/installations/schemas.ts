/** JSON Schemas of the installation endpoints. */
export const createInstallationBody = {
  type: 'object',
  additionalProperties: false,
  required: ['endUserId', 'apps'],
  properties: {
    endUserId: { type: 'string', minLength: 1, maxLength: 100, description: 'The end user the installation is for.' },
    apps: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      description: 'The apps installed, each with the connection whose credentials its actions run with.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['appSlug', 'connectionId'],
        properties: {
          appSlug: { type: 'string', minLength: 1, maxLength: 100, description: 'The app.' },
          connectionId: { type: 'string', minLength: 1, maxLength: 100, description: "A connection of the company to that app." },
        },
      },
    },
    metadata: {
      type: 'object',
      maxProperties: 50,
      additionalProperties: { type: ['string', 'number', 'boolean'] },
      description: 'Host variables of the installation, available to credential exchange and argument templates. At most 16384 bytes as JSON.',
    },
  },
} as const;

export interface CreateInstallationBody {
  endUserId: string;
  apps: { appSlug: string; connectionId: string }[];
  metadata?: Record<string, string | number | boolean>;
}

/** What the API answers for an installation. */
export const installationView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'endUserId', 'apps', 'metadata', 'createdOn', 'updatedOn'],
  properties: {
    id: { type: 'string' },
    endUserId: { type: 'string' },
    apps: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['appId', 'appSlug', 'connectionId'],
        properties: { appId: { type: 'string' }, appSlug: { type: 'string' }, connectionId: { type: 'string' } },
      },
    },
    metadata: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
    createdOn: { type: 'string', format: 'date-time' },
    updatedOn: { type: 'string', format: 'date-time' },
  },
} as const;
