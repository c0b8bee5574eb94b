import type { KnownErrorCode } from '../../platform/errors/index.ts';
import { appConfigurationView, putAppConfigurationBody } from '../../tenancy/app-configurations/schemas.ts';
import { paginationSchema } from '../../tenancy/companies/schemas.ts';
import { authorization, authorizeQuery, callbackQuery, choiceView, chooseBody, chosenConnection } from '../connect/schemas.ts';
import { CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS } from '../../tenancy/connections/connection-fields.ts';
import { connectionView, createConnectionBody, updateConnectionBody } from '../../tenancy/connections/schemas.ts';
import { embeddingView, putEmbeddingBody } from '../../tenancy/embedding/schemas.ts';
import { connectAppView, createOwnConnectionBody, endUserSessionView, reauthorizeQuery, reconnectOwnConnectionBody } from '../end-user-connections/schemas.ts';
import { endUserRunBody } from '../end-user-runs/schemas.ts';
import { definitionsStatusSchema } from '../../core/definitions/status-schema.ts';
import { END_USER_FIELDS, END_USER_LIST_OPTIONS, endUserView } from '../../tenancy/end-users/end-user-fields.ts';
import { deletedEndUser, updateEndUserBody } from '../../tenancy/end-users/schemas.ts';
import { actionDescription, actionSummary, appDescription, appRef, listOption, optionsBody, optionsPageMeta, versionName, versionQuery } from '../describe/schemas.ts';
import { INSTALLATION_FIELDS, INSTALLATION_LIST_OPTIONS } from '../../tenancy/installations/installation-fields.ts';
import { actionEnvelope } from '../installations/run-schemas.ts';
import { createInstallationBody, installationView } from '../../tenancy/installations/schemas.ts';
import { listQuerySchema } from '../../platform/query/list-query.ts';
import { universalRunBody } from '../runs/schemas.ts';
import { createWebhookBody, deliveryView, updateWebhookBody, webhookView, webhookWithSecret } from '../../tenancy/webhooks/schemas.ts';
import { JSON_BODY, RUN, STORE, TRANSPORT, type Endpoint, type Schema } from './endpoint.ts';
import { PROXY_ENDPOINTS } from './proxy-endpoints.ts';

/** { success: true, data } around one record. */
const one = (data: Schema): Schema => ({ type: 'object', additionalProperties: false, required: ['success', 'data'], properties: { success: { const: true }, data } });

/** A list page: `fields` may leave any field out, so the items require none. */
const page = (item: Schema): Schema => {
  const { required: _required, ...open } = item as { required?: unknown };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['success', 'data', 'meta'],
    properties: {
      success: { const: true },
      data: { type: 'array', items: open },
      meta: { type: 'object', additionalProperties: false, required: ['pagination'], properties: { pagination: paginationSchema } },
    },
  };
};

/** The describe envelope: { success, data: [...], meta } with the meta each route sends. */
const described = (item: Schema, meta: Record<string, Schema>, optionalMeta: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  additionalProperties: false,
  required: ['success', 'data', 'meta'],
  properties: {
    success: { const: true },
    data: { type: 'array', items: item },
    meta: { type: 'object', additionalProperties: false, required: Object.keys(meta), properties: { ...meta, ...optionalMeta } },
  },
});

const deleted = one({
  type: 'object',
  additionalProperties: false,
  required: ['id', 'deleted'],
  properties: { id: { type: 'string' }, deleted: { const: true } },
});

const id = (what: string): Schema => ({ type: 'string', minLength: 1, description: `The ${what} id.` });
const slug = (what: string): Schema => ({ type: 'string', minLength: 1, description: `The ${what} slug.` });

const READ: KnownErrorCode[] = [...TRANSPORT, 'UNAUTHORIZED', ...STORE];
const WRITE: KnownErrorCode[] = [...TRANSPORT, ...JSON_BODY, 'UNAUTHORIZED', ...STORE];
const VERSION: KnownErrorCode[] = ['VALIDATION_ERROR', 'APP_NOT_FOUND', 'APP_VERSION_NOT_FOUND'];
/** An auth's verification request, sent when credentials are given (a refusal by the app is a VALIDATION_ERROR on the credentials). */
const VERIFY: KnownErrorCode[] = ['VERIFICATION_FAILED', 'EGRESS_DENIED', 'UPSTREAM_UNREACHABLE', 'UPSTREAM_PROTOCOL_ERROR', 'RESPONSE_TOO_LARGE', 'UPSTREAM_TIMEOUT'];
const VERIFIED =
  " When the auth declares a verification request (verify), it is sent with the credentials first: a 401 or 403 from the app answers 400 (rule accepted, on the credential field) and nothing is stored; another failure answers 502 VERIFICATION_FAILED (or the outbound error) and nothing is stored; a success gives the connection its accountLabel.";


/**
 * Everything but the v1 surface: definitions status, describe and the
 * universal run, connections, installations, app configuration and the
 * connect flow, and this document.
 */
export const V2_ENDPOINTS: Endpoint[] = [
  {
    method: 'get',
    path: '/v2/definitions/status',
    operationId: 'getDefinitionsStatus',
    tag: 'Definitions',
    summary: 'Definitions status',
    description: 'Which snapshot of the app definitions serves (content hash, loaded-at, apps) and the located problems of the latest load attempt.',
    security: 'apiKey',
    response: { description: 'The status.', schema: one(definitionsStatusSchema) },
    errorCodes: READ,
  },
  {
    method: 'get',
    path: '/v2/universal/apps',
    operationId: 'listApps',
    tag: 'Describe',
    summary: 'List apps',
    description: 'Every app the gateway serves and its versions, by slug. A query parameter is 400 VALIDATION_ERROR naming it (a `limit` is refused, not ignored).',
    security: 'apiKey',
    response: {
      description: 'The apps.',
      schema: described(appDescription, { count: { type: 'integer', minimum: 0 }, definitionsHash: { type: 'string' } }),
    },
    errorCodes: [...READ, 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/v2/universal/apps/{appSlug}/actions',
    operationId: 'listActions',
    tag: 'Describe',
    summary: "List an app version's actions",
    description: 'The actions of one version of an app (published unless ?version= says otherwise), by slug. Any other query parameter is 400 VALIDATION_ERROR naming it.',
    security: 'apiKey',
    pathParameters: { appSlug: slug('app') },
    query: versionQuery,
    response: { description: 'The actions.', schema: described(actionSummary, { app: appRef, version: versionName, count: { type: 'integer', minimum: 0 } }) },
    errorCodes: [...READ, ...VERSION],
  },
  {
    method: 'get',
    path: '/v2/universal/apps/{appSlug}/actions/{actionSlug}',
    operationId: 'describeAction',
    tag: 'Describe',
    summary: 'Describe an action',
    description: 'One action and every argument, hidden ones included and marked, in definition order.',
    security: 'apiKey',
    pathParameters: { appSlug: slug('app'), actionSlug: slug('action') },
    query: versionQuery,
    response: { description: 'The action, as the one item of data.', schema: described(actionDescription, { app: appRef, version: versionName }) },
    errorCodes: [...READ, ...VERSION, 'ACTION_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v2/universal/apps/{appSlug}/actions/{actionSlug}/arguments/{key}/options',
    operationId: 'listArgumentOptions',
    tag: 'Describe',
    summary: "A List argument's options",
    description:
      'Fixed, Country and Currency lists answer from the definition (search filters them all). A Lookup runs its action with connectionId, one page per call: ' +
      "cursor is the lookup action's own cursor (send back meta.cursor for the next page), and search goes to the list's searchArgument (meta.searched app) " +
      'or, without one, filters the page the app answered (meta.searched page: later pages may hold more matches).',
    security: 'apiKey',
    pathParameters: { appSlug: slug('app'), actionSlug: slug('action'), key: { type: 'string', minLength: 1, description: 'The argument key.' } },
    query: versionQuery,
    body: optionsBody,
    bodyRequired: false,
    response: {
      description: 'The options.',
      schema: described(listOption, {
        app: appRef,
        version: versionName,
        action: { type: 'string' },
        argument: { type: 'string' },
        listType: { type: 'string' },
        count: { type: 'integer', minimum: 0 },
      }, optionsPageMeta),
    },
    errorCodes: [...WRITE, ...VERSION, 'ACTION_NOT_FOUND', 'ARGUMENT_NOT_FOUND', 'ARGUMENT_HAS_NO_OPTIONS', 'LOOKUP_UNAVAILABLE', ...RUN],
  },
  {
    method: 'post',
    path: '/v2/universal/apps/{appSlug}/actions/{actionSlug}/run',
    operationId: 'runAction',
    tag: 'Run',
    summary: 'Run an action',
    description: 'Runs one action of an app with a connection (connectionId) or an installation\'s connection for the app (installationId). The result is the common envelope.',
    security: 'apiKey',
    pathParameters: { appSlug: slug('app'), actionSlug: slug('action') },
    query: versionQuery,
    body: universalRunBody,
    bodyRequired: false,
    response: { description: 'The action result in the common envelope; when the app call failed (success false), meta.appError is the app\'s own error.', schema: actionEnvelope },
    errorCodes: [...WRITE, ...VERSION, 'ACTION_NOT_FOUND', 'CONNECTION_REQUIRED', 'CONNECTION_SELECTOR_CONFLICT', ...RUN],
    envelopeStatuses: {
      '429': 'The app rate-limited the call and the API\'s retry policy gave up (every attempt used, a wait past its cap or the run\'s budget, or a limit not worth retrying such as a daily quota): the envelope, success false, meta.tooManyRequests true, meta.appError the app\'s last answer.',
      '502': 'The response mapping failed or hit a guardrail: the envelope, success false, meta.error.code MAPPING_ERROR (and no meta.appError: the app\'s verdict is unknown).',
    },
  },
  {
    method: 'put',
    path: '/v2/apps/{appSlug}/configuration',
    operationId: 'putAppConfiguration',
    tag: 'App configuration',
    summary: "Set an app's configuration",
    description: "Your OAuth 2.0 client and credential-exchange endpoint for one app. Secrets are kept when left out.",
    security: 'apiKey',
    pathParameters: { appSlug: slug('app') },
    body: putAppConfigurationBody,
    response: { description: 'The configuration, secrets as whether they are set.', schema: one(appConfigurationView) },
    // An unknown app is 400 VALIDATION_ERROR naming appSlug; the stored secrets are opened to be kept.
    errorCodes: [...WRITE, 'CREDENTIALS_UNREADABLE'],
  },
  {
    method: 'get',
    path: '/v2/apps/{appSlug}/configuration',
    operationId: 'getAppConfiguration',
    tag: 'App configuration',
    summary: "Get an app's configuration",
    description: 'Your configuration of one app; 404 when there is none.',
    security: 'apiKey',
    pathParameters: { appSlug: slug('app') },
    response: { description: 'The configuration, secrets as whether they are set.', schema: one(appConfigurationView) },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v2/apps/{appSlug}/icon',
    operationId: 'getAppIcon',
    tag: 'Describe',
    summary: "Get an app's icon",
    description:
      "The app's icon as SVG, for tiles (the end-user apps listing gives its iconUrl): the icon.svg of the app's folder (a brand icon from simple-icons, CC0-1.0, or a monogram, written by npm run icons), else a monogram drawn from its name. " +
      'No authentication: an <img> cannot send a token. Served with an ETag (304 on If-None-Match), Cache-Control public, max-age=3600, and a CSP under which nothing in it runs or loads.',
    security: null,
    pathParameters: { appSlug: slug('app') },
    response: { description: 'The icon (image/svg+xml).', mediaType: 'image/svg+xml', schema: { type: 'string', description: 'An SVG document.' } },
    errorCodes: [...TRANSPORT, 'APP_NOT_FOUND', 'NOT_READY'],
  },
  {
    method: 'get',
    path: '/v2/embedding',
    operationId: 'getEmbedding',
    tag: 'Embedding',
    summary: 'Get the embedding settings',
    description: 'The browser origins allowed to call the end-user endpoints and receive the OAuth return, and the apps your end users may connect themselves. Both empty until set: nothing is open to browsers.',
    security: 'apiKey',
    response: { description: 'The settings.', schema: one(embeddingView) },
    errorCodes: READ,
  },
  {
    method: 'put',
    path: '/v2/embedding',
    operationId: 'putEmbedding',
    tag: 'Embedding',
    summary: 'Set the embedding settings',
    description:
      "Replaces the settings whole. An origin is scheme, host and optional port (https://app.example.com), no path or wildcard, http:// only for localhost and 127.0.0.1; an app is the slug of a loaded app; theme.logoUrl is an absolute https URL without a user name or password (rule https). Each problem is a VALIDATION_ERROR naming the item. The Connect page's Content-Security-Policy allows https images for the logo (img-src 'self' https:).",
    security: 'apiKey',
    body: putEmbeddingBody,
    response: { description: 'The settings as kept (origins normalised).', schema: one(embeddingView) },
    errorCodes: WRITE,
  },
  {
    method: 'get',
    path: '/v2/end-user/apps',
    operationId: 'listEndUserApps',
    tag: 'End-user session',
    summary: 'List the apps an end user may connect',
    description:
      "With an end-user token: the apps the company enabled (PUT /v2/embedding enabledApps) that are loaded, with name, initials and website for a tile, and each auth's arguments as the API checks them, its help (where to find the key) and whether the app checks the credentials, for the Connect page's forms.",
    security: 'endUserToken',
    response: { description: 'The apps.', schema: described(connectAppView, { count: { type: 'integer', minimum: 0 } }) },
    errorCodes: [...READ, 'VALIDATION_ERROR', 'FORBIDDEN'],
  },
  {
    method: 'get',
    path: '/v2/end-user/connections',
    operationId: 'listEndUserConnections',
    tag: 'End-user session',
    summary: "List the end user's own connections",
    description: "With an end-user token: that end user's connections only (status shows needs_reauthorization), with the same fields, sorting, paging and RSQL filter as GET /v2/connections.",
    security: 'endUserToken',
    query: listQuerySchema(CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS),
    response: { description: 'One page of connections.', schema: page(connectionView) },
    errorCodes: [...READ, 'VALIDATION_ERROR', 'FORBIDDEN'],
  },
  {
    method: 'post',
    path: '/v2/end-user/connections',
    operationId: 'createEndUserConnection',
    tag: 'End-user session',
    summary: 'Create an own connection',
    description:
      'With an end-user token: stores a connection for that end user to an app the company enabled (else 403 APP_NOT_ENABLED), its credentials checked against the auth exactly as POST /v2/connections checks them. OAuth 2.0 authorization-code auths connect through GET /v2/connect/{appSlug}/authorize instead. An end user with END_USER_MAX_CONNECTIONS connections (1,000 by default, whoever made them) gets 409 CONNECTION_LIMIT_REACHED until one is deleted; at most END_USER_CONNECT_ATTEMPTS_PER_MINUTE attempts a minute (429 RATE_LIMITED).' + VERIFIED,
    security: 'endUserToken',
    body: createOwnConnectionBody,
    response: { status: '201', description: 'The connection.', schema: one(connectionView) },
    errorCodes: [...WRITE, 'FORBIDDEN', 'APP_NOT_ENABLED', 'CONNECTION_LIMIT_REACHED', 'RATE_LIMITED', ...VERIFY],
  },
  {
    method: 'get',
    path: '/v2/end-user/session',
    operationId: 'getEndUserSession',
    tag: 'End-user session',
    summary: "The end user's session",
    description:
      "With an end-user token: whose token it is (name, email, the company's name), the company's allowed origins and when the token expires. The Connect page shows \"Signed in as …\" from it, and answers a page that opened it (postMessage) only when that page's origin is one of allowedOrigins.",
    security: 'endUserToken',
    response: { description: 'The session.', schema: one(endUserSessionView) },
    errorCodes: [...READ, 'FORBIDDEN'],
  },
  {
    method: 'patch',
    path: '/v2/end-user/connections/{connectionId}',
    operationId: 'reconnectEndUserConnection',
    tag: 'End-user session',
    summary: 'Reconnect an own connection with new credentials',
    description:
      "With an end-user token: replaces the credentials (and the metadata when given) of one of that end user's connections of a form app (API key, basic, credentials), checked against the auth as on create; the connection keeps its id and becomes active again, and one that needed re-authorization fires connection.reauthorized. Another end user's or the company's connection is 404; an OAuth 2.0 authorization-code connection is 400 (rule oauth2): it reconnects through /reauthorize." + VERIFIED,
    security: 'endUserToken',
    pathParameters: { connectionId: id('connection') },
    body: reconnectOwnConnectionBody,
    response: { description: 'The connection, active.', schema: one(connectionView) },
    errorCodes: [...WRITE, 'NOT_FOUND', 'CONFLICT', 'FORBIDDEN', 'APP_NOT_ENABLED', 'RATE_LIMITED', ...VERIFY],
  },
  {
    method: 'get',
    path: '/v2/end-user/connections/{connectionId}/reauthorize',
    operationId: 'reauthorizeEndUserConnection',
    tag: 'End-user session',
    summary: 'Reconnect an own OAuth connection',
    description:
      "With an end-user token: an authorization URL for one of that end user's OAuth 2.0 authorization-code connections. When the provider sends the browser back, the callback gives that same connection the new tokens (same id), makes it active and, if it needed re-authorization, fires connection.reauthorized; the return URL gets connectionId (or error and error_description). returnUrl: a page on one of the company's allowed origins, or the gateway's own /connect/oauth-return. Another end user's or the company's connection is 404; a form connection is 400 (rule oauth2).",
    security: 'endUserToken',
    pathParameters: { connectionId: id('connection') },
    query: reauthorizeQuery,
    response: { description: 'Where to send the browser.', schema: one(authorization) },
    errorCodes: [...READ, ...VERSION, 'NOT_FOUND', 'APP_NOT_CONFIGURED', 'CREDENTIALS_UNREADABLE', 'APP_NOT_ENABLED', 'FORBIDDEN'],
  },
  {
    method: 'delete',
    path: '/v2/end-user/connections/{connectionId}',
    operationId: 'deleteEndUserConnection',
    tag: 'End-user session',
    summary: 'Delete an own connection',
    description: "With an end-user token: deletes one of that end user's connections; another end user's or the company's is 404, one an installation uses is 409.",
    security: 'endUserToken',
    pathParameters: { connectionId: id('connection') },
    response: { description: 'It is gone.', schema: deleted },
    errorCodes: [...READ, 'NOT_FOUND', 'CONFLICT', 'FORBIDDEN'],
  },
  {
    method: 'post',
    path: '/v2/end-user/apps/{appSlug}/actions/{actionSlug}/run',
    operationId: 'runEndUserAction',
    tag: 'End-user session',
    summary: 'Run an action with an own connection',
    description:
      "With an end-user token: runs one action of an app the company enabled (else 403 APP_NOT_ENABLED) with one of that end user's own connections (another end user's or the company's is 404), answering exactly what POST /v2/universal/apps/{appSlug}/actions/{actionSlug}/run answers. A draft version runs only for a test end user (403 otherwise).",
    security: 'endUserToken',
    pathParameters: { appSlug: slug('app'), actionSlug: slug('action') },
    query: versionQuery,
    body: endUserRunBody,
    response: { description: 'The action result in the common envelope; when the app call failed (success false), meta.appError is the app\'s own error.', schema: actionEnvelope },
    errorCodes: [...WRITE, ...VERSION, 'ACTION_NOT_FOUND', 'FORBIDDEN', 'APP_NOT_ENABLED', ...RUN],
    envelopeStatuses: {
      '429': 'The app rate-limited the call and the API\'s retry policy gave up: the envelope, success false, meta.tooManyRequests true, meta.appError the app\'s last answer.',
      '502': 'The response mapping failed or hit a guardrail: the envelope, success false, meta.error.code MAPPING_ERROR.',
    },
  },
  {
    method: 'post',
    path: '/v2/connections',
    operationId: 'createConnection',
    tag: 'Connections',
    summary: 'Create a connection',
    description: 'Stores a connection to an app account; credentials are checked against the auth and never returned.' + VERIFIED,
    security: 'apiKey',
    body: createConnectionBody,
    response: { status: '201', description: 'The connection.', schema: one(connectionView) },
    errorCodes: [...WRITE, 'NOT_FOUND', ...VERIFY],
  },
  {
    method: 'get',
    path: '/v2/connections',
    operationId: 'listConnections',
    tag: 'Connections',
    summary: 'List connections',
    description: "The company's connections, with field selection, sorting, paging and an RSQL filter.",
    security: 'apiKey',
    query: listQuerySchema(CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS),
    response: { description: 'One page of connections.', schema: page(connectionView) },
    errorCodes: [...READ, 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/v2/connections/{connectionId}',
    operationId: 'getConnection',
    tag: 'Connections',
    summary: 'Get a connection',
    description: 'One connection, without its credentials.',
    security: 'apiKey',
    pathParameters: { connectionId: id('connection') },
    response: { description: 'The connection.', schema: one(connectionView) },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'patch',
    path: '/v2/connections/{connectionId}',
    operationId: 'updateConnection',
    tag: 'Connections',
    summary: 'Update a connection',
    description:
      'Renames it, or replaces its credentials or metadata whole (which makes a connection needing reauthorization active again: an API key, basic or bearer connection is marked so when a run gets the app\'s 401 and the auth\'s verify request is refused too).' + VERIFIED,
    security: 'apiKey',
    pathParameters: { connectionId: id('connection') },
    body: updateConnectionBody,
    response: { description: 'The connection.', schema: one(connectionView) },
    errorCodes: [...WRITE, 'NOT_FOUND', 'CONFLICT', 'CREDENTIALS_UNREADABLE', ...VERIFY],
  },
  {
    method: 'delete',
    path: '/v2/connections/{connectionId}',
    operationId: 'deleteConnection',
    tag: 'Connections',
    summary: 'Delete a connection',
    description: 'Deletes it; 409 while an installation uses it.',
    security: 'apiKey',
    pathParameters: { connectionId: id('connection') },
    response: { description: 'It is gone.', schema: deleted },
    errorCodes: [...READ, 'NOT_FOUND', 'CONFLICT'],
  },
  {
    method: 'post',
    path: '/v2/installations',
    operationId: 'createInstallation',
    tag: 'Installations',
    summary: 'Create an installation',
    description: "An end user's installation of apps, each app bound to a connection of the company.",
    security: 'apiKey',
    body: createInstallationBody,
    response: { status: '201', description: 'The installation.', schema: one(installationView) },
    errorCodes: [...WRITE, 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v2/installations',
    operationId: 'listInstallations',
    tag: 'Installations',
    summary: 'List installations',
    description: "The company's installations, with field selection, sorting, paging and an RSQL filter.",
    security: 'apiKey',
    query: listQuerySchema(INSTALLATION_FIELDS, INSTALLATION_LIST_OPTIONS),
    response: { description: 'One page of installations.', schema: page(installationView) },
    errorCodes: [...READ, 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/v2/installations/{installationId}',
    operationId: 'getInstallation',
    tag: 'Installations',
    summary: 'Get an installation',
    description: 'One installation.',
    security: 'apiKey',
    pathParameters: { installationId: id('installation') },
    response: { description: 'The installation.', schema: one(installationView) },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'delete',
    path: '/v2/installations/{installationId}',
    operationId: 'deleteInstallation',
    tag: 'Installations',
    summary: 'Delete an installation',
    description: 'Deletes it; its connections stay.',
    security: 'apiKey',
    pathParameters: { installationId: id('installation') },
    response: { description: 'It is gone.', schema: deleted },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v2/end-users',
    operationId: 'listEndUsers',
    tag: 'End users',
    summary: 'List end users',
    description: "The company's end users (the people of your product, created with POST /v1/users), with field selection, sorting, paging and an RSQL filter. GET /v1/users lists the company's members instead.",
    security: 'apiKey',
    query: listQuerySchema(END_USER_FIELDS, END_USER_LIST_OPTIONS),
    response: { description: 'One page of end users.', schema: page(endUserView) },
    errorCodes: [...READ, 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/v2/end-users/{endUserId}',
    operationId: 'getEndUser',
    tag: 'End users',
    summary: 'Get an end user',
    description: "One end user of the company; another company's end user is 404.",
    security: 'apiKey',
    pathParameters: { endUserId: id('end user') },
    response: { description: 'The end user.', schema: one(endUserView) },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'patch',
    path: '/v2/end-users/{endUserId}',
    operationId: 'updateEndUser',
    tag: 'End users',
    summary: 'Update an end user',
    description: 'Replaces the fields given (metadata whole), checked with the rules of POST /v1/users; externalId cannot change.',
    security: 'apiKey',
    pathParameters: { endUserId: id('end user') },
    body: updateEndUserBody,
    response: { description: 'The end user.', schema: one(endUserView) },
    errorCodes: [...WRITE, 'NOT_FOUND'],
  },
  {
    method: 'delete',
    path: '/v2/end-users/{endUserId}',
    operationId: 'deleteEndUser',
    tag: 'End users',
    summary: 'Delete an end user',
    description:
      'Deletes the end user with their installations, their connections (and credentials) and their pending OAuth authorizations; their end-user tokens answer 401 from then on. ' +
      'If a request fails half-way, sending DELETE again finishes the job; a DELETE of an end user with nothing left is 404.',
    security: 'apiKey',
    pathParameters: { endUserId: id('end user') },
    response: { description: 'It is gone, with what went with it.', schema: one(deletedEndUser) },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v2/connect/{appSlug}/authorize',
    operationId: 'authorizeConnection',
    tag: 'Connect',
    summary: 'Start an OAuth 2.0 connection',
    description:
      "An authorization URL to send the browser to; the provider sends it back to the callback, which redirects to returnUrl: it must be on one of the company's allowed origins (PUT /v2/embedding), else 400 VALIDATION_ERROR rule origin. With the API key or an end user's token (then only for an app the company enabled for end users, else 403 APP_NOT_ENABLED, and 409 CONNECTION_LIMIT_REACHED when the end user has END_USER_MAX_CONNECTIONS connections). An end user has at most ten authorizations under way: starting an eleventh gives up the oldest, whose callback then redirects with error oauth_state_invalid.",
    security: 'apiKeyOrEndUserToken',
    pathParameters: { appSlug: slug('app') },
    query: authorizeQuery,
    response: { description: 'Where to send the browser.', schema: one(authorization) },
    errorCodes: [...READ, ...VERSION, 'NOT_FOUND', 'APP_NOT_CONFIGURED', 'CREDENTIALS_UNREADABLE', 'APP_NOT_ENABLED', 'FORBIDDEN', 'CONNECTION_LIMIT_REACHED'],
  },
  {
    method: 'get',
    path: '/v2/connect/callback',
    operationId: 'connectCallback',
    tag: 'Connect',
    summary: 'OAuth 2.0 callback',
    description:
      "The provider's redirect back (not called by clients): stores the connection and redirects the browser to the return URL with connectionId, with choiceId when the grant reaches several accounts and the end user chooses one (GET and POST /v2/connect/choices/{choiceId}), or with error and error_description. " +
      "An authorization an end-user token started stores nothing here: it comes back with choiceId, a choice of one (confirm: true) that only that end user's session (or the API key) can make, so a consent link sent to someone else never connects their account to the end user who started it. " +
      'A state used already, or expired, goes back to its return URL with error=oauth_state_invalid (an expired one while its return URL is still allowed); a state the gateway did not sign is 400 OAUTH_STATE_INVALID, as there is no return URL to go to. ' +
      'Other query parameters (scope, iss, session_state: what a provider adds) are ignored.',
    security: null,
    query: callbackQuery,
    unknownQuery: 'ignored',
    response: { status: '302', description: 'The browser goes to the return URL, the outcome in its query.' },
    errorCodes: [...TRANSPORT, ...STORE, 'OAUTH_STATE_INVALID', 'CREDENTIALS_UNREADABLE'],
  },
  {
    method: 'get',
    path: '/v2/connect/choices/{choiceId}',
    operationId: 'getConnectChoice',
    tag: 'Connect',
    summary: 'The accounts an authorization reaches, to choose one',
    description:
      "When a provider's grant reaches several accounts (Xero organisations, Atlassian sites: the auth's postAuthorization) and the auth lets the end user choose, the callback redirects to the return URL with choiceId instead of connectionId. " +
      "It also comes back for every authorization an end-user token started (confirm: true, one option): that end user's session confirms it. " +
      'This answers the options to show (the Connect page does it for you). With the API key, or the token of the end user the authorization is for (one that ran out at most 10 minutes ago is still taken here: a sign-in may end after the session). A choice made, expired (10 minutes) or not yours is 404.',
    security: 'apiKeyOrEndUserToken',
    pathParameters: { choiceId: id('pending choice') },
    response: { description: 'The pending choice and its options.', schema: one(choiceView) },
    errorCodes: [...READ, 'NOT_FOUND', 'FORBIDDEN'],
  },
  {
    method: 'post',
    path: '/v2/connect/choices/{choiceId}',
    operationId: 'makeConnectChoice',
    tag: 'Connect',
    summary: 'Choose the account a connection is for',
    description:
      'Makes the connection (or renews the one a reconnect named) with the chosen option (optionId 1 to confirm a choice of one): its metadata (tenantId, …) joins what the authorization gave, the tokens are the ones the provider issued. Once: a second answer, an expired choice or one that is not yours is 404; an optionId that is not one of the options is 400 VALIDATION_ERROR. With the API key, or the token of the end user the authorization is for (one that ran out at most 10 minutes ago is still taken): with the token, a new connection is 409 CONNECTION_LIMIT_REACHED while the end user has END_USER_MAX_CONNECTIONS connections, and the choice waits until one is deleted (for as long as it lives).',
    security: 'apiKeyOrEndUserToken',
    pathParameters: { choiceId: id('pending choice') },
    body: chooseBody,
    response: { description: 'The connection made with the chosen account.', schema: one(chosenConnection) },
    errorCodes: [...WRITE, 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'CONNECTION_LIMIT_REACHED', 'APP_NOT_FOUND', 'APP_VERSION_NOT_FOUND', 'CREDENTIALS_UNREADABLE'],
  },
  {
    method: 'post',
    path: '/v2/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint',
    description:
      'Connection events (connection.created, connection.deleted, connection.needs_reauthorization, connection.reauthorized, end_user.deleted) are POSTed to the URL, signed with the secret answered here, once: ' +
      'header Gateway-Signature `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` and Gateway-Event-Id. The URL must be https (http only for a host EGRESS_ALLOW admits); an IP address the egress policy refuses is refused here, a host name at each delivery.',
    security: 'apiKey',
    body: createWebhookBody,
    response: { status: '201', description: 'The endpoint with its signing secret (shown this once).', schema: one(webhookWithSecret) },
    errorCodes: [...WRITE, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/v2/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhook endpoints',
    description: "The company's webhook endpoints (at most 20), oldest first, without their secrets. A query parameter is 400 VALIDATION_ERROR naming it (a `limit` is refused, not ignored).",
    security: 'apiKey',
    response: {
      description: 'The endpoints.',
      schema: { type: 'object', additionalProperties: false, required: ['success', 'data'], properties: { success: { const: true }, data: { type: 'array', items: webhookView } } },
    },
    errorCodes: [...READ, 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/v2/webhooks/{webhookId}',
    operationId: 'getWebhook',
    tag: 'Webhooks',
    summary: 'Get a webhook endpoint',
    description: 'One endpoint, without its secret.',
    security: 'apiKey',
    pathParameters: { webhookId: id('webhook endpoint') },
    response: { description: 'The endpoint.', schema: one(webhookView) },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'patch',
    path: '/v2/webhooks/{webhookId}',
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Update a webhook endpoint',
    description: 'Changes its URL, event types, description, or enables or disables it (enabling clears the reason the gateway disabled it for).',
    security: 'apiKey',
    pathParameters: { webhookId: id('webhook endpoint') },
    body: updateWebhookBody,
    response: { description: 'The endpoint.', schema: one(webhookView) },
    errorCodes: [...WRITE, 'NOT_FOUND'],
  },
  {
    method: 'delete',
    path: '/v2/webhooks/{webhookId}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'Deletes it with its deliveries; pending ones are not sent.',
    security: 'apiKey',
    pathParameters: { webhookId: id('webhook endpoint') },
    response: { description: 'It is gone.', schema: deleted },
    errorCodes: [...READ, 'NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v2/webhooks/{webhookId}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret',
    description:
      'A new secret replaces the old one at once: every attempt from now on, retries of earlier events included, is signed with it. Answered this once. It takes no body; one sent is read as every POST body is (JSON, at most 1 MiB) and otherwise ignored.',
    security: 'apiKey',
    pathParameters: { webhookId: id('webhook endpoint') },
    response: { description: 'The endpoint with its new signing secret.', schema: one(webhookWithSecret) },
    // The JSON body reader runs for every POST (server/middleware/json-body.ts): a body sent here is read, its errors answered.
    errorCodes: [...WRITE, 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v2/webhooks/{webhookId}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List recent deliveries',
    description:
      'The endpoint\'s deliveries, newest first: the pending ones and the last WEBHOOK_DELIVERIES_KEPT finished (delivered, or failed: given up after WEBHOOK_RETRY_WINDOW_MS, or answered 410). ' +
      'Status, attempts, the last answer\'s status and duration, the last error, the next attempt; never the secret, never the answer\'s body. A query parameter is 400 VALIDATION_ERROR naming it (a `limit` is refused, not ignored).',
    security: 'apiKey',
    pathParameters: { webhookId: id('webhook endpoint') },
    response: {
      description: 'The deliveries.',
      schema: { type: 'object', additionalProperties: false, required: ['success', 'data'], properties: { success: { const: true }, data: { type: 'array', items: deliveryView } } },
    },
    errorCodes: [...READ, 'VALIDATION_ERROR', 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v2/openapi.json',
    operationId: 'getOpenApiDocumentV2',
    tag: 'Meta',
    summary: 'Get the v2 OpenAPI document',
    description: 'This document: the OpenAPI 3.1 description of everything but the v1 surface (that is /v1/openapi.json). No authentication.',
    security: null,
    response: { description: 'The OpenAPI 3.1 document.', schema: { type: 'object', additionalProperties: true } },
    errorCodes: [],
    // As /v1/openapi.json: only its 200, a query string ignored.
    unknownQuery: 'ignored',
  },
  ...PROXY_ENDPOINTS,
];
