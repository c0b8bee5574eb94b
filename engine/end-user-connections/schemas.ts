/** JSON Schemas of the end-user endpoints (end-user token): requests are validated with them, the OpenAPI document is built from them. */
import { createConnectionBody } from '../connections/schemas.ts';
import { argumentDescription } from '../describe/schemas.ts';

const { endUserId: _endUserId, ...ownConnectionProperties } = createConnectionBody.properties;

/** As POST /v2/connections, less endUserId: the token says whose connection it is. */
export const createOwnConnectionBody = {
  ...createConnectionBody,
  properties: {
    ...ownConnectionProperties,
    appSlug: { ...ownConnectionProperties.appSlug, description: 'The app the connection is to: one of the apps your company enabled (GET /v2/end-user/apps).' },
    authId: { ...ownConnectionProperties.authId, description: "The auth to use (not an OAuth 2.0 authorization-code one: those connect through GET /v2/connect/{appSlug}/authorize); the app's default auth when omitted." },
  },
} as const;

export interface CreateOwnConnectionBody {
  appSlug: string;
  authId?: string;
  name?: string;
  credentials?: Record<string, unknown>;
  metadata?: Record<string, string | number | boolean>;
}

/** An argument as GET /v2/universal/apps/.../actions/... describes it; a List's options are written inline (Fixed) or need a connection (Lookup), so optionsPath is null. */
const formArgument = {
  ...argumentDescription,
  properties: {
    ...argumentDescription.properties,
    list: {
      ...argumentDescription.properties.list,
      properties: { type: { type: 'string' }, optionsPath: { type: 'null' } },
      description: 'The List settings as written (a Fixed list carries its options); null when the argument is not a List.',
    },
  },
} as const;

export const connectAppView = {
  type: 'object',
  additionalProperties: false,
  required: ['slug', 'name', 'initials', 'website', 'description', 'metadataArguments', 'auths'],
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    initials: { type: 'string', description: "Up to two letters from the app's name, for a tile when there is no logo (the definitions carry no logo)." },
    website: { type: ['string', 'null'], description: "The app's website as its definition gives it (a page may show its favicon)." },
    description: { type: ['string', 'null'] },
    metadataArguments: { type: 'array', items: formArgument, description: 'The host variables a connection gives as metadata (a subdomain, a region): the API arguments of the version.' },
    auths: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'type', 'connect', 'arguments', 'credentialFields'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string', description: 'The name shown when a user connects; the auth type when its definition gives none.' },
          type: { type: 'string' },
          connect: { enum: ['oauth', 'form'], description: 'oauth: send the browser to GET /v2/connect/{appSlug}/authorize; form: POST /v2/end-user/connections with the credentials.' },
          arguments: { type: 'array', items: formArgument, description: "The auth's arguments, sent as credentials, held to these rules on create." },
          credentialFields: {
            type: 'array',
            items: { type: 'object', additionalProperties: false, required: ['key', 'required'], properties: { key: { type: 'string' }, required: { type: 'boolean' } } },
            description: "Credentials the auth kind takes besides its arguments (a client-credentials auth's clientId and clientSecret).",
          },
        },
      },
    },
  },
} as const;
