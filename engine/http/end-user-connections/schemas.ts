/** JSON Schemas of the end-user endpoints (end-user token): requests are validated with them, the OpenAPI document is built from them. */
import { createConnectionBody } from '../../tenancy/connections/schemas.ts';
import { argumentDescription } from '../describe/schemas.ts';
import { themeView } from '../../tenancy/embedding/schemas.ts';

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
  required: ['slug', 'name', 'initials', 'iconUrl', 'categories', 'website', 'description', 'metadataArguments', 'auths'],
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    initials: { type: 'string', description: "Up to two letters from the app's name (the monogram's letters), for a tile drawn without the icon." },
    iconUrl: { type: 'string', format: 'uri', description: "The app's icon (SVG), served by the gateway at /v2/apps/{appSlug}/icon without authentication: its brand icon or a monogram." },
    categories: { type: 'array', items: { type: 'string' }, description: "The app's catalogue categories (app.yaml categories), the main one first; empty when it has none." },
    website: { type: ['string', 'null'], description: "The app's website as its definition gives it (a page may show its favicon)." },
    description: { type: ['string', 'null'] },
    metadataArguments: { type: 'array', items: formArgument, description: 'The host variables a connection gives as metadata (a subdomain, a region): the API arguments of the version.' },
    auths: {
      type: 'array',
      description:
        "Every way to connect the app, in its definition's order, except OAuth 2.0 authorization-code auths while your company has not configured the app's client (PUT /v2/apps/{appSlug}/configuration). An app left with none is not listed.",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'description', 'help', 'verifies', 'type', 'scopes', 'connect', 'arguments', 'authorizationMetadata', 'credentialFields'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string', description: 'The name shown when a user connects; the auth type when its definition gives none.' },
          description: { type: ['string', 'null'], description: "The auth definition's description: what it needs and where the user finds it (shown as help)." },
          help: {
            type: ['object', 'null'],
            additionalProperties: false,
            required: ['text', 'url', 'translations'],
            properties: {
              text: { type: 'string' },
              url: { type: ['string', 'null'], description: 'The provider\'s https page that explains where to find the key.' },
              translations: { type: 'object', additionalProperties: { type: 'string' }, description: 'text by language code (de, fr), where the definition gives it.' },
            },
            description: "The auth definition's help: where to find the key, and the provider's page; null when it has none (docs/definitions.md, help).",
          },
          verifies: { type: 'boolean', description: "Whether connecting sends the auth's verification request (verify) first: the credentials are checked with the app, and a refusal answers 400." },
          type: { type: 'string' },
          scopes: { type: 'array', items: { type: 'string' }, description: 'OAuth: the scopes the sign-in asks for, shown before the redirect; empty otherwise.' },
          connect: { enum: ['oauth', 'form'], description: 'oauth: send the browser to GET /v2/connect/{appSlug}/authorize; form: POST /v2/end-user/connections with the credentials.' },
          arguments: { type: 'array', items: formArgument, description: "The auth's arguments, sent as credentials, held to these rules on create." },
          authorizationMetadata: {
            type: 'array',
            items: { type: 'string' },
            description: "Keys of metadataArguments the auth's authorization fills in itself (QuickBooks' realmId, Xero's tenantId): not asked before connecting.",
          },
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

/** GET /v2/end-user/session: who the token is for, and what a page embedding the Connect page must be on. */
export const endUserSessionView = {
  type: 'object',
  additionalProperties: false,
  required: ['endUserId', 'name', 'email', 'company', 'allowedOrigins', 'theme', 'expiresAt'],
  properties: {
    endUserId: { type: 'string' },
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    company: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' } } },
    allowedOrigins: {
      type: 'array',
      items: { type: 'string' },
      description: "The company's allowed origins (PUT /v2/embedding): the Connect page answers a page that opened it (postMessage) only when that page is on one of them.",
    },
    theme: { ...themeView, description: "The company's theme for the Connect page (PUT /v2/embedding)." },
    expiresAt: { type: 'string', format: 'date-time', description: "When the token expires (its exp): the page then asks the end user to open it again from the company's product." },
  },
} as const;

/** PATCH /v2/end-user/connections/{connectionId}: new credentials for an own connection (a reconnect), checked as on create. */
export const reconnectOwnConnectionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['credentials'],
  properties: {
    credentials: {
      type: 'object',
      maxProperties: 50,
      additionalProperties: true,
      description:
        "Replaces the credentials whole: the auth's arguments as GET /v2/end-user/apps describes them, checked as on create. Stored encrypted, never returned. A connection marked needs_reauthorization becomes active again (connection.reauthorized). Not for an OAuth 2.0 authorization-code connection: that one reconnects through GET /v2/end-user/connections/{connectionId}/reauthorize.",
    },
    metadata: { ...createOwnConnectionBody.properties.metadata, description: 'Replaces the host variables whole when given; kept as they are when left out.' },
  },
} as const;

export interface ReconnectOwnConnectionBody {
  credentials: Record<string, unknown>;
  metadata?: Record<string, string | number | boolean>;
}

/** GET /v2/end-user/connections/{connectionId}/reauthorize: where the renewed tokens go back to. */
export const reauthorizeQuery = {
  required: ['returnUrl'],
  properties: {
    returnUrl: {
      type: 'string',
      minLength: 1,
      description:
        "Where the browser goes when the provider answered, with connectionId (the same connection's) or error and error_description in its query: a page on one of the company's allowed origins, or the gateway's own /connect/oauth-return.",
    },
  },
} as const;
