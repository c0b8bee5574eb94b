import type { CollectionName } from '../port.ts';

/**
 * How each collection of the port is laid out in SQL (PostgreSQL, and PGlite
 * in DATA_DIR): one table per collection, one column per field of the record
 * (records.ts), named in snake_case. Objects and arrays a client gives
 * (metadata, settings, apps, origins) are JSONB; everything else has its own
 * typed column, so lists filter and sort on indexed columns.
 *
 * A column's presence says how NULL reads back:
 *   required  never NULL
 *   nullable  NULL is the field's null
 *   optional  NULL is the field left out (bootstrapPending, externalKey): `$unset` writes it
 *
 * This map is what the adapter reads and writes; the migrations
 * (migrations/) create the tables, and a spec holds the two to each other.
 */
export type ColumnType = 'text' | 'boolean' | 'integer' | 'timestamptz' | 'jsonb';
export type Presence = 'required' | 'nullable' | 'optional';

export interface Column {
  field: string;
  column: string;
  type: ColumnType;
  presence: Presence;
}

export interface Table {
  name: string;
  columns: ReadonlyMap<string, Column>;
}

/** `text`, `text?` (nullable), `text~` (optional). */
type Spec = Record<string, `${ColumnType}${'' | '?' | '~'}`>;

const SPECS: Record<CollectionName, Spec> = {
  companies: {
    id: 'text', name: 'text', description: 'text?', isPersonal: 'boolean', timezone: 'text', settings: 'jsonb', isDeleted: 'boolean',
    createdOn: 'timestamptz', updatedOn: 'timestamptz', plan: 'text', billingSubscriptionProductId: 'text?', subscriptionIsLegacy: 'boolean',
    subscriptionUpdatedOn: 'timestamptz?', memberCount: 'integer', bootstrapPending: 'boolean~',
  },
  members: { id: 'text', companyId: 'text', userId: 'text', name: 'text', email: 'text', role: 'text', createdOn: 'timestamptz' },
  apiKeys: { id: 'text', companyId: 'text', userId: 'text', name: 'text', prefix: 'text', hash: 'text', createdOn: 'timestamptz', revokedOn: 'timestamptz?' },
  endUsers: {
    id: 'text', companyId: 'text', externalId: 'text?', externalKey: 'text~', name: 'text?', email: 'text?', isTestUser: 'boolean', metadata: 'jsonb',
    createdOn: 'timestamptz', updatedOn: 'timestamptz',
  },
  connections: {
    id: 'text', companyId: 'text', appId: 'text', appSlug: 'text', authId: 'text', authType: 'text', endUserId: 'text?', name: 'text?', metadata: 'jsonb',
    credentials: 'jsonb', credentialsVersion: 'integer', status: 'text', tokenExpiresAt: 'timestamptz?', renewingUntil: 'timestamptz~', createdOn: 'timestamptz', updatedOn: 'timestamptz',
    accountLabel: 'text~',
  },
  installations: { id: 'text', companyId: 'text', endUserId: 'text', apps: 'jsonb', metadata: 'jsonb', createdOn: 'timestamptz', updatedOn: 'timestamptz' },
  signingKeys: { id: 'text', algorithm: 'text', publicJwk: 'jsonb', privateKey: 'jsonb', createdOn: 'timestamptz', retiredOn: 'timestamptz?' },
  appConfigurations: {
    id: 'text', companyId: 'text', appSlug: 'text', configKey: 'text', clientId: 'text?', redirectUri: 'text?', exchangeUrl: 'text?', secrets: 'jsonb',
    hasClientSecret: 'boolean', hasExchangeSecret: 'boolean', createdOn: 'timestamptz', updatedOn: 'timestamptz',
  },
  pendingAuthorizations: {
    id: 'text', companyId: 'text', appSlug: 'text', authId: 'text', endUserId: 'text?', metadata: 'jsonb', secrets: 'jsonb', expiresAt: 'timestamptz',
    createdOn: 'timestamptz', choice: 'jsonb~',
  },
  embeddingSettings: { id: 'text', companyId: 'text', allowedOrigins: 'jsonb', enabledApps: 'jsonb', endUserProxy: 'boolean~', theme: 'jsonb~', createdOn: 'timestamptz', updatedOn: 'timestamptz' },
  webhookEndpoints: {
    id: 'text', companyId: 'text', url: 'text', events: 'jsonb', description: 'text?', enabled: 'boolean', disabledReason: 'text?', secret: 'jsonb',
    createdOn: 'timestamptz', updatedOn: 'timestamptz',
  },
  webhookDeliveries: {
    id: 'text', companyId: 'text', endpointId: 'text', eventId: 'text', eventType: 'text', payload: 'text', status: 'text', attempts: 'integer',
    claims: 'integer', nextAttemptAt: 'timestamptz?', giveUpAt: 'timestamptz', lastAttemptAt: 'timestamptz?', responseStatus: 'integer?',
    durationMs: 'integer?', error: 'text?', createdOn: 'timestamptz', updatedOn: 'timestamptz', finishedOn: 'timestamptz?',
  },
};

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function table(collection: CollectionName): Table {
  const columns = new Map<string, Column>();
  for (const [field, spec] of Object.entries(SPECS[collection])) {
    const presence: Presence = spec.endsWith('?') ? 'nullable' : spec.endsWith('~') ? 'optional' : 'required';
    columns.set(field, { field, column: snakeCase(field), type: spec.replace(/[?~]$/, '') as ColumnType, presence });
  }
  return { name: snakeCase(collection), columns };
}

export const TABLES: Readonly<Record<CollectionName, Table>> = Object.fromEntries(
  (Object.keys(SPECS) as CollectionName[]).map((name) => [name, table(name)]),
) as Record<CollectionName, Table>;
