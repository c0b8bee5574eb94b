import type { Collection, Filter } from '../store/index.ts';
import type { FieldTable } from './field-table.ts';
import { paginationMeta, parseListQuery, pickFields, type ListQueryOptions, type Pagination } from './list-query.ts';

/**
 * How many matches past the page a list counts before it stops and answers totalCountExact false.
 * 1,000, not 10,000: counting is reading, and a filter a quarter of a million records share (a metadata
 * value, say) was counted by reading 40,000 rows, 20 ms of PostgreSQL's time on every page (p99 38-41 ms at
 * 1,000,000 end users against a goal of 20); at 1,000 it reads about 4,400 (3 ms). A client showing
 * "1,020+" loses nothing a client showing "10,020+" had (README.md, "The v1 API": `meta.pagination`).
 */
export const COUNT_LIMIT = 1_000;

/**
 * One page of a list endpoint: the client's `fields`/`sort`/`limit`/`offset`/`where`
 * applied inside `scope` (the tenant's records only), answered in the envelope
 * with pagination meta.
 */
export async function listPage<R extends { id: string }, V extends Record<string, unknown>>(
  collection: Collection<R>,
  scope: Filter,
  queryString: Record<string, unknown>,
  table: FieldTable,
  options: ListQueryOptions,
  view: (record: R) => V,
): Promise<{ success: true; data: Partial<V>[]; meta: { pagination: Pagination } }> {
  const query = parseListQuery(queryString, table, options);
  const filter = Object.keys(query.filter).length ? { $and: [scope, query.filter] } : scope;
  // The count is bounded: past COUNT_LIMIT matches beyond this page, totalCount is that many and not exact.
  const countLimit = query.skip + query.limit + COUNT_LIMIT;
  const [records, counted] = await Promise.all([
    collection.find(filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
    // The page's order: a range on its first field is counted from the index the page reads (port.ts).
    collection.count(filter, { limit: countLimit, sort: query.sort }),
  ]);
  return {
    success: true,
    data: records.map((r) => pickFields(view(r), query.fields)),
    meta: { pagination: paginationMeta(counted, query, records.length, counted < countLimit) },
  };
}
