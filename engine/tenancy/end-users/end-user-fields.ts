import { fieldSchema, type FieldTable } from '../../platform/query/field-table.ts';
import type { ListQueryOptions } from '../../platform/query/list-query.ts';
import type { EndUserRecord } from '../../platform/store/index.ts';

/** The fields of GET /v2/end-users: what each item has, and what `fields`, `sort` and `where` may name. */
export const END_USER_FIELDS: FieldTable = {
  id: { type: 'string', description: 'The end user id (`eu_…`); use it in GET /v1/users/{userId}/token.' },
  externalId: { type: 'string', nullable: true, description: "The customer's own id for the person; null when none was given." },
  name: { type: 'string', nullable: true, description: 'Display name; null when none was given.' },
  email: { type: 'string', nullable: true, description: 'Email address (lower case); null when none was given.' },
  isTestUser: { type: 'boolean', description: "true links the end user to the customer's workspace for testing." },
  metadata: { type: 'object', description: 'Per-end-user host variables; filter by one key, e.g. metadata.region==eu.' },
  createdOn: { type: 'date-time', description: 'When the end user was created (ISO 8601, UTC).' },
  updatedOn: { type: 'date-time', description: 'When the end user last changed (ISO 8601, UTC).' },
};

export const END_USER_LIST_OPTIONS: ListQueryOptions = {
  defaultLimit: 100,
  maxLimit: 1000,
  // Oldest first, then by id, unless `sort` says otherwise.
  defaultSort: { createdOn: 1 },
  tieBreaker: 'id',
  examples: { fields: 'id,externalId,email', sort: '-createdOn,name', where: 'metadata.region==eu;isTestUser==false' },
};

/** An end user as the API answers it (before `fields` picks from it); externalKey is internal. */
export function endUserItem(u: EndUserRecord) {
  return {
    id: u.id,
    externalId: u.externalId,
    name: u.name,
    email: u.email,
    isTestUser: u.isTestUser,
    metadata: u.metadata,
    createdOn: u.createdOn.toISOString(),
    updatedOn: u.updatedOn.toISOString(),
  };
}

/** One end user, every field present (GET, PATCH); the list's items are the same with none required. */
export const endUserView = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(END_USER_FIELDS),
  properties: Object.fromEntries(Object.entries(END_USER_FIELDS).map(([name, field]) => [name, fieldSchema(field)])),
};
