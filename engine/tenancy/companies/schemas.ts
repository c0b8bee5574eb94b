import { listQuerySchema, type Pagination } from '../../platform/query/list-query.ts';
import { COUNT_LIMIT } from '../../platform/query/list-page.ts';
import { COMPANY_FIELDS, COMPANY_LIST_OPTIONS, companyItemSchema } from './company-fields.ts';

/** The JSON Schemas of GET /v1/companies; the OpenAPI document is built from them. */
export const listCompaniesQuery = listQuerySchema(COMPANY_FIELDS, COMPANY_LIST_OPTIONS);

export const paginationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['totalCount', 'totalCountExact', 'hasNextPage', 'hasPreviousPage'],
  properties: {
    totalCount: { type: 'integer', minimum: 0, description: 'How many companies match `where`, across all pages.' },
    totalCountExact: { type: 'boolean', description: `true when totalCount is exact; false when more than ${COUNT_LIMIT.toLocaleString('en-US')} records match beyond this page: totalCount is then offset + limit + ${COUNT_LIMIT.toLocaleString('en-US')} (a lower bound), so a count never reads a whole company.` },
    hasNextPage: { type: 'boolean', description: 'true when offset + the number returned is less than totalCount.' },
    hasPreviousPage: { type: 'boolean', description: 'true when offset is above 0.' },
  },
} as const;

export const listCompaniesResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'data', 'meta'],
  properties: {
    success: { const: true },
    data: { type: 'array', items: companyItemSchema },
    meta: {
      type: 'object',
      additionalProperties: false,
      required: ['pagination'],
      properties: { pagination: paginationSchema },
    },
  },
};

export interface ListCompaniesResponse {
  success: true;
  data: Record<string, unknown>[];
  meta: { pagination: Pagination };
}
