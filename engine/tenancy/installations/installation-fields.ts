import type { FieldTable } from '../../platform/query/field-table.ts';
import type { ListQueryOptions } from '../../platform/query/list-query.ts';

/** The fields of GET /v2/installations that `fields`, `sort` and `where` may name. */
export const INSTALLATION_FIELDS: FieldTable = {
  id: { type: 'string', description: 'The installation id (`ins_…`).' },
  endUserId: { type: 'string', description: 'The end user the installation is for.' },
  apps: { type: 'object', description: 'The installed apps with their connections; filter by one key, e.g. apps.appSlug==github.' },
  metadata: { type: 'object', description: 'Host variables; filter by one key, e.g. metadata.plan==pro.' },
  createdOn: { type: 'date-time', description: 'When the installation was created.' },
  updatedOn: { type: 'date-time', description: 'When the installation last changed.' },
};

export const INSTALLATION_LIST_OPTIONS: ListQueryOptions = {
  defaultLimit: 100,
  maxLimit: 1000,
  defaultSort: { createdOn: 1 },
  tieBreaker: 'id',
  examples: { fields: 'id,endUserId,apps', sort: '-createdOn', where: 'apps.appSlug==github;createdOn>=2026-01-01' },
};
