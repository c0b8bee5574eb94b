import { fieldSchema, type FieldTable } from '../../platform/query/field-table.ts';
import type { ListQueryOptions } from '../../platform/query/list-query.ts';
import type { CompanyRecord } from '../../platform/store/index.ts';

/**
 * The fields of GET /v1/companies: what each item has, what `fields`,
 * `sort` and `where` may name, and their types. Dates are ISO 8601 strings
 * in JSON and compared as instants in `where`.
 */
export const COMPANY_FIELDS: FieldTable = {
  id: { type: 'string', description: 'The company id (`cmp_…`).' },
  name: { type: 'string', description: 'Display name.' },
  description: { type: 'string', nullable: true, description: 'Free text; null when none was given.' },
  isPersonal: { type: 'boolean', description: 'true for a one-person workspace.' },
  timezone: { type: 'string', description: 'IANA time zone name, e.g. Europe/Berlin.' },
  settings: { type: 'object', description: 'Company settings as key/value pairs; filter by one key, e.g. settings.locale==de.' },
  isDeleted: { type: 'boolean', description: 'true once the company is deleted; filter with isDeleted==false to hide those.' },
  createdOn: { type: 'date-time', description: 'When the company was created (ISO 8601, UTC).' },
  updatedOn: { type: 'date-time', description: 'When the company last changed (ISO 8601, UTC).' },
  plan: { type: 'string', description: 'The plan the company is on, e.g. free.' },
  billingSubscriptionProductId: { type: 'string', nullable: true, description: 'The billing product of the subscription; null without one.' },
  subscriptionIsLegacy: { type: 'boolean', description: 'true when the subscription is on a retired price.' },
  subscriptionUpdatedOn: { type: 'date-time', nullable: true, description: 'When the subscription last changed; null without one.' },
  memberCount: { type: 'integer', description: 'How many members the company has.' },
};

export const COMPANY_LIST_OPTIONS: ListQueryOptions = {
  defaultLimit: 100,
  maxLimit: 1000,
  // Oldest first, then by id, unless `sort` says otherwise.
  defaultSort: { createdOn: 1 },
  tieBreaker: 'id',
  examples: { sort: '-createdOn,name', where: 'plan==pro;(memberCount>=10,name=like=acme*)' },
};

/** A company as the API answers it (before `fields` picks from it). */
export type CompanyItem = Record<keyof typeof COMPANY_FIELDS, unknown>;

export function companyItem(c: CompanyRecord): CompanyItem {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    isPersonal: c.isPersonal,
    timezone: c.timezone,
    settings: c.settings,
    isDeleted: c.isDeleted,
    createdOn: c.createdOn.toISOString(),
    updatedOn: c.updatedOn.toISOString(),
    plan: c.plan,
    billingSubscriptionProductId: c.billingSubscriptionProductId,
    subscriptionIsLegacy: c.subscriptionIsLegacy,
    subscriptionUpdatedOn: c.subscriptionUpdatedOn ? c.subscriptionUpdatedOn.toISOString() : null,
    memberCount: c.memberCount,
  };
}

/** One item of the list: every field optional, since `fields` may leave any out. */
export const companyItemSchema = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(Object.entries(COMPANY_FIELDS).map(([name, field]) => [name, fieldSchema(field)])),
};
