import type { Argument } from './imported-app.ts';
import type { Pagination } from '../../core/definitions/generated/definition-types.ts';
import { isObj, str, type Obj } from './json-access.ts';
import { step, type ResponsePlan } from './response-plan.ts';
import { itemsOf, objectShape, typeOf } from './schema-shape.ts';

/** What the importer found about how a listing pages. */
export interface PagingPlan {
  pagination: Pagination;
  /** The argument the pagination fills (the cursor, offset or page parameter): the engine sends it, so the action does not declare it. */
  filled: string | undefined;
  /** A response mapping's `meta.cursor`, for a Cursor without `next` (Stripe's last id while `has_more`). */
  mappingCursor: string | undefined;
  /** For the offline cases: the body field (path) that holds the next token or URL, or the last row's id. */
  next: { field: string[]; kind: 'token' | 'url' } | { lastId: true } | { linkHeader: true } | undefined;
}

const CURSOR_PARAMS = ['cursor', 'starting_after', 'startingafter', 'after', 'page_token', 'pagetoken', 'next_token', 'nexttoken', 'continuation', 'continuation_token', 'continuationtoken', 'marker', 'start_cursor', 'startcursor', 'page_cursor', 'pagecursor', 'next', 'since_id'];
const NEXT_TOKEN_FIELDS = ['next_cursor', 'nextcursor', 'next_page_token', 'nextpagetoken', 'next_token', 'nexttoken', 'endcursor', 'end_cursor', 'continuation', 'continuation_token', 'next_marker', 'nextmarker', 'cursor', 'after', 'next'];
const NEXT_URL_FIELDS = ['next_url', 'nexturl', 'next_link', 'nextlink', '@odata.nextlink', 'next_page_uri', 'next_page_url', 'nextpageuri', 'nextpageurl', 'next_href', 'next'];
const OFFSET_PARAMS = ['offset', 'skip', 'start', 'startat', 'start_at', 'start_index', 'startindex', 'first'];
const PAGE_PARAMS = ['page', 'page_number', 'pagenumber', 'pageindex', 'page_index'];
const SIZE_PARAMS = ['limit', 'per_page', 'perpage', 'page_size', 'pagesize', 'count', 'max_results', 'maxresults', 'size', 'top', 'max', 'pagelimit', 'page_limit'];
const TOTAL_FIELDS = ['total', 'total_count', 'totalcount', 'total_results', 'totalresults', 'total_size', 'totalsize'];
const TOTAL_PAGES_FIELDS = ['total_pages', 'totalpages', 'num_pages', 'page_count', 'pagecount', 'pages'];
const LAST_FIELDS = ['is_last', 'islast', 'last_page', 'lastpage'];
const MORE_FIELDS = ['more', 'has_more', 'hasmore', 'has_next', 'hasnext', 'has_next_page', 'hasnextpage'];

/**
 * How a `list` or `search` action pages, from its parameters and its
 * response, by the kinds the engine knows (docs/definitions.md, Pagination):
 * - a next URL in the body (`links.pages.next`, `next_page_uri`,
 *   `@odata.nextLink`) or a `Link` header: NextUrl;
 * - a cursor parameter (`cursor`, `starting_after`, `page_token`, ...) and a
 *   next token in the body (`response_metadata.next_cursor`,
 *   `nextPageToken`): Cursor with `next`; with `has_more` and rows with ids
 *   instead (Stripe): Cursor, the mapping's `meta.cursor` the last id;
 * - `offset` and a size parameter: Offset (`total`, `more`/`isLast` read
 *   when the response has them);
 * - `page` and a size parameter: Page (`total_pages` when given).
 * None of these: no pagination (the listing is one page as far as the
 * description says).
 */
export function detectPagination(args: Argument[], plan: ResponsePlan, method: string): PagingPlan | undefined {
  const inRequest = args.filter((a) => a.parent === undefined && (a.location === 'Query' || (a.location === 'Body' && method !== 'GET')));
  const byName = (names: string[]) => inRequest.find((a) => names.includes((a.externalKey ?? a.key).toLowerCase()));
  const fields = fieldsOf(plan);
  const field = (names: string[], where?: (f: Field) => boolean) => fields.find((f) => names.includes(f.path.at(-1)!.toLowerCase()) && (!where || where(f)));
  const location = (arg: Argument) => (arg.location === 'Body' ? 'Body' : 'Query') as 'Query' | 'Body';
  const expression = (path: string[]) => `body.${path.map(step).join('.')}`;

  const nextUrl = field(NEXT_URL_FIELDS, (f) => f.type === 'string' && (f.format === 'uri' || f.format === 'url' || /ur[il]|link|href/i.test(f.path.at(-1)!) || /^(links|_links|pages|paging)$/i.test(f.path.at(-2) ?? '')));
  if (nextUrl) return { pagination: { type: 'NextUrl', next: expression(nextUrl.path) }, filled: undefined, mappingCursor: undefined, next: { field: nextUrl.path, kind: 'url' } };
  if (plan.headers.includes('link')) return { pagination: { type: 'NextUrl', from: 'LinkHeader' }, filled: undefined, mappingCursor: undefined, next: { linkHeader: true } };

  // An offset the app hands back as a token (Asana's next_page.offset) is a cursor, not a number to add to.
  const tokenOffset = field(['offset'], (f) => f.path.length > 1 && /next/i.test(f.path.at(-2)!) && f.type === 'string');
  const cursorParam = byName(CURSOR_PARAMS) ?? (tokenOffset ? byName(['offset']) : undefined);
  if (cursorParam) {
    const token = field(NEXT_TOKEN_FIELDS, (f) => f.type === 'string' || f.type === 'integer' || f.type === 'number');
    const key = cursorParam.externalKey ?? cursorParam.key;
    if (token) return { pagination: { type: 'Cursor', location: location(cursorParam), key, next: expression(token.path) }, filled: cursorParam.key, mappingCursor: undefined, next: { field: token.path, kind: 'token' } };
    const nested = field(['offset'], (f) => f.path.length > 1 && /next/i.test(f.path.at(-2)!));
    if (nested) return { pagination: { type: 'Cursor', location: location(cursorParam), key, next: expression(nested.path) }, filled: cursorParam.key, mappingCursor: undefined, next: { field: nested.path, kind: 'token' } };
    const more = field(MORE_FIELDS, (f) => f.type === 'boolean' && f.path.length === 1);
    if (plan.data.from !== 'nothing' && plan.listed && rowsHaveId(plan)) {
      const rows = plan.data.from === 'field' ? `body.${step(plan.data.field)}` : 'body';
      const last = `${rows}[-1].id`;
      if (more) return { pagination: { type: 'Cursor', location: location(cursorParam), key }, filled: cursorParam.key, mappingCursor: `${expression(more.path)} ? ${last}`, next: { lastId: true } };
      return { pagination: { type: 'Cursor', location: location(cursorParam), key, next: `$count(${rows}) > 0 ? ${last}` }, filled: cursorParam.key, mappingCursor: undefined, next: { lastId: true } };
    }
  }
  const size = byName(SIZE_PARAMS);
  const offset = byName(OFFSET_PARAMS);
  if (offset && size && offset !== size) {
    const pagination: Pagination = { type: 'Offset', location: location(offset), offsetKey: offset.externalKey ?? offset.key, limitKey: size.externalKey ?? size.key };
    const total = field(TOTAL_FIELDS, numeric);
    const last = field(LAST_FIELDS, boolean);
    const more = field(MORE_FIELDS, boolean);
    if (total) pagination.total = expression(total.path);
    if (last) pagination.last = expression(last.path);
    else if (more) pagination.last = `$not(${expression(more.path)})`;
    return { pagination, filled: offset.key, mappingCursor: undefined, next: undefined };
  }
  const page = byName(PAGE_PARAMS);
  if (page && size && page !== size) {
    const pagination: Pagination = { type: 'Page', location: location(page), pageKey: page.externalKey ?? page.key, sizeKey: size.externalKey ?? size.key };
    const totalPages = field(TOTAL_PAGES_FIELDS, numeric);
    const total = field(TOTAL_FIELDS, numeric);
    if (totalPages) pagination.totalPages = expression(totalPages.path);
    else if (total) pagination.total = expression(total.path);
    return { pagination, filled: page.key, mappingCursor: undefined, next: undefined };
  }
  return undefined;
}

interface Field {
  path: string[];
  type: string | undefined;
  format: string | undefined;
}

const numeric = (f: Field) => f.type === 'integer' || f.type === 'number';
const boolean = (f: Field) => f.type === 'boolean';

/** The scalar fields of the success body, three objects deep at most (from the schema, else the example). */
function fieldsOf(plan: ResponsePlan): Field[] {
  const found: Field[] = [];
  const walk = (schema: unknown, example: unknown, path: string[]) => {
    if (path.length > 3 || found.length > 500) return;
    if (schema !== undefined) {
      if (typeOf(schema) !== 'object') return;
      for (const [name, property] of objectShape(schema).properties) {
        const type = typeOf(property);
        if (type === 'object') walk(property, undefined, [...path, name]);
        else if (type !== 'array') found.push({ path: [...path, name], type, format: str(property.format) });
      }
      return;
    }
    if (!isObj(example)) return;
    for (const [name, value] of Object.entries(example)) {
      if (isObj(value)) walk(undefined, value, [...path, name]);
      else if (!Array.isArray(value)) found.push({ path: [...path, name], type: typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value, format: typeof value === 'string' && /^https?:\/\/|^\//.test(value) ? 'uri' : undefined });
    }
  };
  walk(plan.schema && Object.keys(plan.schema).length ? plan.schema : undefined, plan.example, []);
  return found;
}

/** Whether the listed rows are objects with an `id` (the last one's id can start the next page). */
function rowsHaveId(plan: ResponsePlan): boolean {
  if (!plan.schema) return false;
  const list = plan.data.from === 'field' ? objectShape(plan.schema).properties.find(([name]) => name === (plan.data as { field: string }).field)?.[1] : plan.schema;
  const row: Obj = itemsOf(list);
  return objectShape(row).properties.some(([name, s]) => name === 'id' && (typeOf(s) === 'string' || typeOf(s) === 'integer'));
}
