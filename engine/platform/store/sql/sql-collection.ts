import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Collection, Filter, FindOptions, Update } from '../port.ts';
import { validationError } from '../../errors/index.ts';
import { decodeValue, encodeValue } from '../field-encoding.ts';
import { filterSql, resolvePath } from './filter-sql.ts';
import type { Column, Table } from './tables.ts';

/** What a collection needs of its store: the database (or the transaction) to run on, and how errors read. */
export interface SqlRunner {
  db(): Kysely<any>;
  run<R>(collection: string, work: () => Promise<R>): Promise<R>;
}

/**
 * One collection over its table: records in and out of typed columns, the
 * port's filters compiled by filter-sql.ts, every value a parameter.
 */
export class SqlCollection<T extends { id: string }> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly table: Table,
    private readonly runner: SqlRunner,
  ) {}

  async insert(record: T): Promise<T> {
    const row = toRow(this.table, record as unknown as Record<string, unknown>);
    await this.runner.run(this.name, () => this.runner.db().insertInto(this.table.name).values(row).execute());
    return record;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const rows = await this.runner.run(this.name, () => this.select(filter).limit(1).execute());
    return rows.length ? fromRow<T>(this.table, rows[0] as Record<string, unknown>) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let query = this.select(filter);
    for (const [path, direction] of Object.entries(options.sort ?? {})) query = query.orderBy(orderSql(this.table, path, direction));
    if (options.limit !== undefined) query = query.limit(options.limit);
    if (options.skip) query = options.limit === undefined ? query.limit(sql.raw('ALL') as never).offset(options.skip) : query.offset(options.skip);
    const rows = await this.runner.run(this.name, () => query.execute());
    return rows.map((row) => fromRow<T>(this.table, row as Record<string, unknown>));
  }

  async count(filter: Filter, options: { limit?: number; sort?: FindOptions['sort'] } = {}): Promise<number> {
    const condition = filterSql(this.table, filter);
    const row = await this.runner.run(this.name, () => {
      const db = this.runner.db();
      if (options.limit === undefined) return db.selectFrom(this.table.name).select(sql<string>`count(*)`.as('n')).where(condition).executeTakeFirstOrThrow();
      // Counting stops at the limit: the planner reads at most that many matches. A filter bounding the page's
      // first sort field (createdOn>…) is counted in that field's order, from the index the page reads: left to
      // the planner, such a range was counted by a sequential scan wherever the visibility map was unset (PGlite,
      // which never vacuums; PostgreSQL until autovacuum's first pass), and a range's rows lie together in the
      // table (appended in creation order) while the planner expects them spread: a scan starting before them
      // read the older half of the table first, and with synchronized scans each count started where the last
      // one stopped, so about one count in fifty read half the table (1,000,000 end users: 516 and 1,228 ms
      // against a median of 12). Other filters stay unordered: a quarter of the rows matching metadata.region==us
      // are found sooner by a sequential scan (37 ms) than through the createdOn index (154 ms). Only the first
      // field: the tie-breaker would add a sort of every row counted (54 ms against 7).
      let matches = db.selectFrom(this.table.name).select(sql`1`.as('one')).where(condition);
      const [first] = Object.entries(options.sort ?? {});
      if (first && bounds(filter, first[0])) matches = matches.orderBy(orderSql(this.table, first[0], first[1]));
      return db.selectFrom(matches.limit(options.limit).as('m')).select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    });
    return Number((row as { n: string | number }).n);
  }

  async updateOne(filter: Filter, update: Update<T>): Promise<boolean> {
    const set = setClause(this.table, update as Record<string, Record<string, unknown> | undefined>);
    if (Object.keys(set).length === 0) return (await this.findOne(filter)) !== null;
    const result = await this.runner.run(this.name, () => this.runner.db().updateTable(this.table.name).set(set).where(this.oneRow(filter)).executeTakeFirst());
    return Number(result.numUpdatedRows) > 0;
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    const result = await this.runner.run(this.name, () => this.runner.db().deleteFrom(this.table.name).where(this.oneRow(filter)).executeTakeFirst());
    return Number(result.numDeletedRows) > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const result = await this.runner.run(this.name, () => this.runner.db().deleteFrom(this.table.name).where(filterSql(this.table, filter)).executeTakeFirst());
    return Number(result.numDeletedRows);
  }

  private select(filter: Filter) {
    return this.runner.db().selectFrom(this.table.name).selectAll().where(filterSql(this.table, filter));
  }

  /**
   * The first record matching, for updateOne and deleteOne. A filter naming the id reaches one row at most,
   * and the statement's own WHERE is checked again on the newest version of a row another transaction just
   * changed, so a compare-and-set (`{id, credentialsVersion}`) has one winner. Without an id, the row is
   * picked by a locking subquery, which is checked again the same way.
   */
  private oneRow(filter: Filter): RawBuilder<boolean> {
    const condition = filterSql(this.table, filter);
    if (typeof filter.id === 'string') return condition;
    return sql<boolean>`id = (SELECT id FROM ${sql.table(this.table.name)} WHERE ${condition} LIMIT 1 FOR UPDATE)`;
  }
}

const RANGE = ['$gt', '$gte', '$lt', '$lte'];

/** Whether every record the filter matches has `path` within a bound (>, >=, <, <=): a condition on it, alone or in an $and. */
function bounds(filter: Filter, path: string): boolean {
  const condition = filter[path];
  if (condition !== null && typeof condition === 'object' && !(condition instanceof Date) && RANGE.some((op) => op in (condition as object))) return true;
  return Array.isArray(filter.$and) && (filter.$and as Filter[]).some((f) => bounds(f, path));
}

function orderSql(table: Table, path: string, direction: 1 | -1): RawBuilder<unknown> {
  const { column, keys } = resolvePath(table, path);
  if (keys.length || column.type === 'jsonb') throw new Error(`${table.name} cannot sort by ${path}`);
  // MongoDB's order: null (and missing) before every value ascending, after every value descending.
  const nulls = column.presence === 'required' ? '' : direction === 1 ? ' NULLS FIRST' : ' NULLS LAST';
  return sql`${sql.ref(column.column)} ${sql.raw(direction === 1 ? 'ASC' : 'DESC')}${sql.raw(nulls)}`;
}

function setClause(table: Table, update: Record<string, Record<string, unknown> | undefined>): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(update.$set ?? {})) {
    const column = topColumn(table, field);
    set[column.column] = toColumnValue(column, value);
  }
  for (const field of Object.keys(update.$unset ?? {})) set[topColumn(table, field).column] = null;
  for (const [field, by] of Object.entries(update.$inc ?? {})) {
    const column = topColumn(table, field);
    set[column.column] = sql`${sql.ref(column.column)} + ${by as number}`;
  }
  return set;
}

function topColumn(table: Table, field: string): Column {
  const column = table.columns.get(field);
  if (!column) throw new Error(`${table.name} has no field ${field}`);
  return column;
}

/** A record as a row: every field in its column (an unknown field is an error, not dropped). */
export function toRow(table: Table, record: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const column = topColumn(table, field);
    row[column.column] = toColumnValue(column, value);
  }
  return row;
}

function toColumnValue(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'jsonb') return JSON.stringify(encodeValue(value, false, { textWithNul: true }));
  if (column.type === 'text' && typeof value === 'string' && value.includes('\0')) {
    throw validationError([{ field: column.field, rule: 'no-nul', message: 'must not contain the NUL character (U+0000)' }]);
  }
  return value;
}

/** A row as the record it stores: optional columns that are NULL left out, JSON decoded. */
export function fromRow<T>(table: Table, row: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const column of table.columns.values()) {
    const value = row[column.column];
    if (value === null || value === undefined) {
      if (column.presence !== 'optional') record[column.field] = null;
      continue;
    }
    if (column.type === 'jsonb') record[column.field] = decodeValue(typeof value === 'string' ? JSON.parse(value) : value);
    else if (column.type === 'timestamptz') record[column.field] = value instanceof Date ? value : new Date(value as string);
    else if (column.type === 'integer') record[column.field] = Number(value);
    else record[column.field] = value;
  }
  return record as T;
}
