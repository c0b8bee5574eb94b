import type { FieldTable } from '../../platform/query/field-table.ts';
import type { ListQueryOptions } from '../../platform/query/list-query.ts';

/** The fields of GET /v2/connections: what `fields`, `sort` and `where` may name. Credentials are not among them. */
export const CONNECTION_FIELDS: FieldTable = {
  id: { type: 'string', description: 'The connection id (`con_…`).' },
  appId: { type: 'string', description: 'The app id.' },
  appSlug: { type: 'string', description: 'The app slug.' },
  authId: { type: 'string', description: 'The auth definition the credentials are for.' },
  authType: { type: 'string', values: ['ApiKey', 'Basic', 'Bearer', 'OAuth2AuthorizationCode', 'OAuth2ClientCredentials', 'CredentialExchange'], description: 'The kind of auth, e.g. ApiKey or OAuth2AuthorizationCode.' },
  endUserId: { type: 'string', nullable: true, description: 'The end user who owns the account; null for company connections.' },
  name: { type: 'string', nullable: true, description: 'The name given on create.' },
  accountLabel: { type: 'string', nullable: true, description: "Who the account is at the app (a login, a workspace), from the auth's verification; null when unknown." },
  metadata: { type: 'object', description: 'Host variables; filter by one key, e.g. metadata.region==eu.' },
  status: { type: 'string', values: ['active', 'needs_reauthorization'], description: 'active, or needs_reauthorization after the provider refused its grant or client credentials, or the app refused its API key, password or bearer token to a run and again to its auth verification request (PATCH new credentials to make it active).' },
  tokenExpiresAt: { type: 'date-time', nullable: true, description: 'When the stored access token expires, if known.' },
  createdOn: { type: 'date-time', description: 'When the connection was created.' },
  updatedOn: { type: 'date-time', description: 'When the connection last changed (credentials included).' },
};

export const CONNECTION_LIST_OPTIONS: ListQueryOptions = {
  defaultLimit: 100,
  maxLimit: 1000,
  defaultSort: { createdOn: 1 },
  tieBreaker: 'id',
  examples: { fields: 'id,appSlug,status', sort: 'appSlug,-createdOn', where: 'appSlug==github;status==needs_reauthorization' },
};
