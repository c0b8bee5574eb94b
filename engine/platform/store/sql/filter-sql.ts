import { sql, type RawBuilder } from 'kysely';
import type { Filter } from '../port.ts';
import { encodeKey, NESTED_JSON } from '../field-encoding.ts';
import type { Column, Table } from './tables.ts';
import { likeSql } from './like-sql.ts';

/**
 * The port's filter documents (MongoDB's query language, as the engine
 * builds them: port.ts) as SQL conditions, every value a parameter. A field
 * is a typed column; a dotted path into a JSONB column (`metadata.region`,
 * `apps.appSlug`) is a SQL/JSON path, run in lax mode so it reaches into
 * arrays as MongoDB does (`tags==x` matches a tags array holding x) and a
 * key that is missing, or a step into a text, matches nothing.
 *
 * The answers are MongoDB's, which the embedded store and the RSQL cases
 * (spec/platform/query/rsql-cases.json) hold every adapter to:
 *   {f: v}           f = v            (null: f IS NULL)
 *   {f: {$ne: v}}    f IS DISTINCT FROM v (a null field is not v)
 *   {f: {$in: [..]}} f IN (..)        (null in the list: or f IS NULL)
 *   {f: {$nin: ..}}  not in, nulls included unless null is listed
 *   $gt $gte $lt $lte  ordinary comparisons: null is never greater or less
 *   $exists           IS [NOT] NULL, or whether the JSON path reaches a value
 *   $like             like-sql.ts
 *   $and $or $nor $not
 * A value of another type than the column's (a number for a text) matches
 * nothing, as in MongoDB, instead of failing the query.
 */
export function filterSql(table: Table, filter: Filter): RawBuilder<boolean> {
  const parts: RawBuilder<boolean>[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      const items = (value as Filter[]).map((f) => filterSql(table, f));
      if (key === '$and') parts.push(all(items));
      else if (key === '$or') parts.push(any(items));
      // A condition may be NULL where it does not match (a NULL column, a JSON path on a NULL JSONB): not matching is FALSE here.
      else parts.push(sql<boolean>`NOT COALESCE(${any(items)}, FALSE)`);
    } else if (key.startsWith('$')) {
      throw new Error(`the SQL store does not run the filter operator ${key}`);
    } else {
      parts.push(fieldCondition(table, key, value));
    }
  }
  return all(parts);
}

function all(parts: RawBuilder<boolean>[]): RawBuilder<boolean> {
  if (parts.length === 0) return sql<boolean>`TRUE`;
  if (parts.length === 1) return parts[0]!;
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

function any(parts: RawBuilder<boolean>[]): RawBuilder<boolean> {
  if (parts.length === 0) return sql<boolean>`FALSE`;
  if (parts.length === 1) return parts[0]!;
  return sql<boolean>`(${sql.join(parts, sql` OR `)})`;
}

/** The column a field path starts at, and the JSON keys after it (stored escaped, field-encoding.ts). */
export function resolvePath(table: Table, path: string): { column: Column; keys: string[] } {
  const [first, ...rest] = path.split('.');
  const column = table.columns.get(first!);
  if (!column) throw new Error(`${table.name} has no field ${first}`);
  if (rest.length > 0 && column.type !== 'jsonb') throw new Error(`${table.name}.${first} is not an object: ${path}`);
  return { column, keys: rest.map(encodeKey) };
}

function isCondition(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && Object.keys(value).length > 0 && Object.keys(value).every((k) => k.startsWith('$'));
}

function fieldCondition(table: Table, path: string, condition: unknown): RawBuilder<boolean> {
  const { column, keys } = resolvePath(table, path);
  const operators = isCondition(condition) ? Object.entries(condition) : [['$eq', condition] as [string, unknown]];
  const parts = operators.map(([operator, operand]) =>
    column.type === 'jsonb' ? jsonCondition(column, keys, operator, operand) : columnCondition(column, operator, operand),
  );
  return all(parts);
}

/** Whether MongoDB would compare the value with the column at all (same type bracket). */
function fits(column: Column, value: unknown): boolean {
  switch (column.type) {
    case 'text':
      // A text column never holds NUL (toColumnValue refuses it, and PostgreSQL cannot take it as a parameter): such a value matches nothing.
      return typeof value === 'string' && !value.includes('\0');
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value);
    case 'timestamptz':
      return value instanceof Date;
    default:
      return false;
  }
}

function columnCondition(column: Column, operator: string, operand: unknown): RawBuilder<boolean> {
  const ref = sql.ref(column.column);
  switch (operator) {
    case '$eq':
      if (operand === null) return sql<boolean>`${ref} IS NULL`;
      return fits(column, operand) ? sql<boolean>`${ref} = ${operand}` : sql<boolean>`FALSE`;
    case '$ne':
      if (operand === null) return sql<boolean>`${ref} IS NOT NULL`;
      return fits(column, operand) ? sql<boolean>`${ref} IS DISTINCT FROM ${operand}` : sql<boolean>`TRUE`;
    case '$in':
    case '$nin': {
      const list = operand as unknown[];
      const values = list.filter((v) => v !== null && fits(column, v));
      const hasNull = list.includes(null);
      const inList = values.length ? sql<boolean>`${ref} IN (${sql.join(values)})` : sql<boolean>`FALSE`;
      const matches = hasNull ? sql<boolean>`(${ref} IS NULL OR ${inList})` : inList;
      // NOT (x IN ...) is NULL for a NULL x: COALESCE makes a null field "not in" a list without null.
      return operator === '$in' ? matches : sql<boolean>`NOT COALESCE(${matches}, FALSE)`;
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      if (!fits(column, operand)) return sql<boolean>`FALSE`;
      const op = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[operator];
      return sql<boolean>`${ref} ${sql.raw(op)} ${operand}`;
    }
    case '$exists':
      return operand ? sql<boolean>`${ref} IS NOT NULL` : sql<boolean>`${ref} IS NULL`;
    case '$like':
      if (column.type !== 'text' || !fits(column, operand)) return sql<boolean>`FALSE`;
      return likeSql(ref, operand as string);
    default:
      throw new Error(`the SQL store does not run the filter operator ${operator}`);
  }
}

/**
 * A condition on a JSONB column, or on a path into it, as a SQL/JSON path
 * given as a parameter: `col @? '<path> ? (@ == "us" || @ == 3)'`. The
 * values are JSON literals inside that parameter, never SQL text; the GIN
 * index (jsonb_path_ops) answers `@?` with equalities.
 *
 * A match is the bare `col @? path`, the only form the planner can answer
 * from the GIN index (wrapped in COALESCE it reads every row of the company:
 * 3.5 s at 1,000,000 end users for a value none has, against 0.4 ms). Where
 * it is NULL (a NULL column) the row is not selected, as FALSE would; only a
 * negation needs FALSE itself, so `NOT` wraps the COALESCE (and `$nor`
 * does too, in filterSql).
 */
function jsonCondition(column: Column, keys: string[], operator: string, operand: unknown): RawBuilder<boolean> {
  const ref = sql.ref(column.column);
  const path = `lax $${keys.map((k) => `.${jsonPathString(k)}`).join('')}`;
  const exists = (jsonPath: string) => sql<boolean>`${ref} @? ${jsonPath}::jsonpath`;
  const not = (condition: RawBuilder<boolean>) => sql<boolean>`NOT COALESCE(${condition}, FALSE)`;
  const equalsAny = (values: unknown[]) => {
    const tests = values.map(jsonPathEquals).filter((t): t is string => t !== null);
    return tests.length ? exists(`${path} ? (${tests.join(' || ')})`) : sql<boolean>`FALSE`;
  };
  switch (operator) {
    case '$eq':
      if (operand !== null && typeof operand === 'object') return sql<boolean>`${ref} #> ${keys} = ${JSON.stringify(operand)}::jsonb`;
      return equalsAny([operand]);
    case '$in':
      return equalsAny(operand as unknown[]);
    case '$ne':
      return not(equalsAny([operand]));
    case '$nin':
      return not(equalsAny(operand as unknown[]));
    case '$exists':
      return operand ? exists(path) : not(exists(path));
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const literal = jsonPathLiteral(operand);
      if (literal === null || operand === null || typeof operand === 'boolean') return sql<boolean>`FALSE`;
      const op = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[operator];
      return exists(`${path} ? (@ ${op} ${literal})`);
    }
    default:
      throw new Error(`the SQL store does not run the filter operator ${operator} on JSON`);
  }
}

/** A key as a SQL/JSON path string: JSON's escapes are the path language's. */
function jsonPathString(key: string): string {
  return JSON.stringify(key);
}

/**
 * The SQL/JSON path test that `@` equals a scalar, or null when nothing stored can (an object). A text
 * holding NUL is stored as `{"%json": "<its JSON text>"}` (field-encoding.ts: JSONB cannot hold NUL), so
 * it is compared as that: its JSON text escapes the NUL, and no NUL reaches PostgreSQL.
 */
function jsonPathEquals(value: unknown): string | null {
  if (typeof value === 'string' && value.includes('\0')) return `@.${jsonPathString(NESTED_JSON)} == ${JSON.stringify(JSON.stringify(value))}`;
  const literal = jsonPathLiteral(value);
  return literal === null ? null : `@ == ${literal}`;
}

/** A scalar as a SQL/JSON path literal, or null when it has none (a text with NUL, an object). */
function jsonPathLiteral(value: unknown): string | null {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : null;
  if (typeof value === 'string') return value.includes('\0') ? null : JSON.stringify(value);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  return null;
}
