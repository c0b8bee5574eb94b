import type { ValidateFunction } from 'ajv';
import { validationError, type FieldProblem } from '../errors/index.ts';
import type { Filter } from '../store/index.ts';
import { httpAjv, toFieldProblems } from '../validation/ajv.ts';
import type { FieldTable } from './field-table.ts';
import { rsqlToFilter, WHERE_LIMITS } from './rsql-filter.ts';

/**
 * The query string of a list endpoint (`fields`, `sort`, `limit`, `offset`,
 * `where`) turned into what the store runs. One field table per endpoint
 * decides what may be named; everything else is a 400 VALIDATION_ERROR
 * naming the parameter.
 *
 *   ?fields=id,name&sort=-createdOn&limit=20&offset=40&where=plan==pro
 */
export interface ListQuery {
  filter: Filter;
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
  /** The JSON fields to answer, in the table's order. */
  fields: string[];
}

export interface ListQueryOptions {
  defaultLimit: number;
  maxLimit: number;
  /** The order without `sort`; `tieBreaker` is always appended so pages never overlap. */
  defaultSort: Record<string, 1 | -1>;
  tieBreaker: string;
  /**
   * What the document shows for this list (Swagger UI's "Try it out" pre-fills it): values of its own
   * fields that it accepts (spec/http/openapi/list-parameters.spec.ts sends each). `fields` defaults to
   * the first two fields.
   */
  examples: { fields?: string; sort: string; where: string };
}

export interface Pagination {
  totalCount: number;
  totalCountExact: boolean;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/**
 * The JSON Schema of the query string; it validates requests and documents
 * the parameters in OpenAPI. `fields` and `sort` carry a pattern of exactly
 * the names they accept and `where` must not be blank, so the document forbids
 * what the service refuses; what a pattern cannot say (a name twice in `sort`,
 * RSQL grammar and types) the descriptions do.
 */
export function listQuerySchema(table: FieldTable, options: ListQueryOptions) {
  const names = Object.keys(table);
  const sortable = names.filter((name) => table[name]!.type !== 'object');
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      fields: {
        type: 'string',
        minLength: 1,
        pattern: listPattern(names, ''),
        description: `Comma-separated fields to return (default: all). Fields: ${names.join(', ')}.`,
        examples: [options.examples.fields ?? names.slice(0, 2).join(',')],
      },
      limit: { type: 'integer', minimum: 1, maximum: options.maxLimit, default: options.defaultLimit, description: 'Maximum number of results.' },
      offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Number of results to skip.' },
      sort: {
        type: 'string',
        minLength: 1,
        pattern: listPattern(sortable, '-?'),
        description: `Comma-separated fields to sort by, each at most once; a leading minus sorts descending. Ties are broken by id, so pages never overlap. Fields: ${sortable.join(', ')}.`,
        examples: [options.examples.sort],
      },
      where: {
        type: 'string',
        minLength: 1,
        maxLength: WHERE_LIMITS.maxLength,
        pattern: '\\S',
        description:
          'RSQL filter. Operators: == != > >= < <= =in= =out= =like= (`*` is the wildcard, case-insensitive); `;` is AND, `,` is OR (AND binds tighter), parentheses group. ' +
          'Values are typed by the field: numbers, true/false, ISO 8601 dates (2026-01-31 or 2026-01-31T12:00:00Z), unquoted null on nullable fields; quote values with spaces or reserved characters. ' +
          `Fields: ${names.map((name) => (table[name]!.type === 'object' ? `${name}.<key>` : name)).join(', ')}.` +
          (names.some((name) => table[name]!.type === 'object') ? ' An object field is compared by one of its keys (== != =in= =out=).' : ''),
        examples: [options.examples.where],
      },
    },
  } as const;
}

/** A comma-separated list of these names (spaces around items allowed, as the parser trims them), each after `prefix`. */
function listPattern(names: readonly string[], prefix: string): string {
  const item = `\\s*${prefix}(?:${names.join('|')})\\s*`;
  return `^${item}(?:,${item})*$`;
}

const validators = new WeakMap<object, ValidateFunction>();

export function parseListQuery(query: Record<string, unknown>, table: FieldTable, options: ListQueryOptions): ListQuery {
  const schema = listQuerySchema(table, options);
  let validate = validators.get(table);
  if (!validate) validators.set(table, (validate = httpAjv.compile(schema)));
  // Query values arrive as text; integers are read before the schema checks their range.
  const input: Record<string, unknown> = { ...query };
  // Up to 300 digits, every one a finite number: the schema's minimum and maximum then say what is wrong with it.
  for (const name of ['limit', 'offset']) {
    if (typeof input[name] === 'string' && /^-?\d{1,300}$/.test(input[name])) input[name] = Number(input[name]);
  }
  const q = input as { fields?: string; limit?: number; offset?: number; sort?: string; where?: string };
  if (!validate(input)) {
    const problems = toFieldProblems(validate.errors ?? [], 'query')
      .map((p) => (p.rule === 'type' && Array.isArray(query[p.field]) ? { ...p, message: 'must be given once' } : queryWords(p)))
      .map((p) => precise(p, q, table, options));
    // minLength and pattern both fail on an empty value; the parser's words say it once.
    throw validationError(problems.filter((p, i) => problems.findIndex((o) => o.field === p.field && o.message === p.message) === i));
  }

  return {
    filter: q.where === undefined ? {} : rsqlToFilter(q.where, table),
    sort: parseSort(q.sort, table, options),
    skip: q.offset ?? 0,
    limit: q.limit ?? options.defaultLimit,
    fields: parseFields(q.fields, table),
  };
}

export function paginationMeta(totalCount: number, query: Pick<ListQuery, 'skip'>, returned: number, exact = true): Pagination {
  return { totalCount, totalCountExact: exact, hasNextPage: query.skip + returned < totalCount, hasPreviousPage: query.skip > 0 };
}

/** Keeps only the requested fields of one answered item. */
export function pickFields<T extends Record<string, unknown>>(item: T, fields: readonly string[]): Partial<T> {
  // Every field, in the view's own order (parseFields keeps the table's order, and views follow it): the item itself.
  const keys = Object.keys(item);
  if (keys.length === fields.length && keys.every((k, i) => k === fields[i])) return item;
  return Object.fromEntries(fields.filter((f) => f in item).map((f) => [f, item[f]])) as Partial<T>;
}

function parseFields(text: string | undefined, table: FieldTable): string[] {
  const all = Object.keys(table);
  if (text === undefined) return all;
  const wanted = splitList(text, 'fields');
  for (const name of wanted) {
    if (!Object.hasOwn(table, name)) throw problem('fields', 'enum', `unknown field "${name}"; fields: ${all.join(', ')}`);
  }
  return all.filter((name) => wanted.includes(name));
}

function parseSort(text: string | undefined, table: FieldTable, options: ListQueryOptions): Record<string, 1 | -1> {
  const sort: Record<string, 1 | -1> = {};
  const entries = text === undefined ? Object.entries(options.defaultSort) : splitList(text, 'sort').map((item) => [item.replace(/^-/, ''), item.startsWith('-') ? -1 : 1] as const);
  for (const [name, direction] of entries) {
    const field = Object.hasOwn(table, name) ? table[name] : undefined;
    if (!field) throw problem('sort', 'enum', `unknown field "${name}"; fields: ${Object.keys(table).join(', ')}`);
    if (field.type === 'object') throw problem('sort', 'enum', `${name} is an object and cannot be sorted by`);
    const path = field.path ?? name;
    if (path in sort) throw problem('sort', 'uniqueItems', `names ${name} twice`);
    sort[path] = direction as 1 | -1;
  }
  const tie = table[options.tieBreaker]?.path ?? options.tieBreaker;
  if (!(tie in sort)) sort[tie] = 1;
  return sort;
}

function splitList(text: string, parameter: string): string[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.some((item) => item === '' || item === '-')) throw problem(parameter, 'format', 'must be a comma-separated list of field names without empty entries');
  return items;
}

function problem(field: string, rule: string, message: string) {
  return validationError([{ field, rule, message }]);
}

/**
 * A pattern or length failure of fields, sort or where in the parser's words
 * (which name is unknown, which is an object, what is empty): its rule and
 * message are the parser's, one problem per parameter.
 */
function precise(p: FieldProblem, q: { fields?: string; sort?: string; where?: string }, table: FieldTable, options: ListQueryOptions): FieldProblem {
  if (p.rule !== 'pattern' && p.rule !== 'minLength') return p;
  try {
    if (p.field === 'fields') parseFields(q.fields, table);
    else if (p.field === 'sort') parseSort(q.sort, table, options);
    else if (p.field === 'where' && q.where !== undefined) rsqlToFilter(q.where, table);
  } catch (error) {
    const problems = (error as { details?: { problems?: FieldProblem[] } }).details?.problems;
    if (problems?.[0]) return problems[0];
  }
  return p;
}

/** A query string has parameters, not fields. */
function queryWords(p: FieldProblem): FieldProblem {
  if (p.rule === 'additionalProperties') return { ...p, message: 'is not a known query parameter' };
  if (p.rule === 'type' && p.message === 'must be a string') return { ...p, message: 'must be given once' };
  return p;
}

/**
 * A route's query string with only these parameters (none for a list answered
 * whole): any other is 400 VALIDATION_ERROR naming it, as on the paginated
 * lists, so a misspelt or unsupported `limit=5` is refused, not ignored.
 */
export function refuseUnknownQuery(query: Record<string, unknown>, known: readonly string[] = []): void {
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw validationError(unknown.map((field) => ({ field, rule: 'additionalProperties', message: 'is not a known query parameter' })));
}
