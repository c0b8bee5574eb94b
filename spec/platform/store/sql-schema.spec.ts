import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import { Kysely } from 'kysely';
import { migrateToLatest } from '../../../engine/platform/store/sql/migrate.ts';
import { pgliteDialect } from '../../../engine/platform/store/sql/pglite-dialect.ts';
import { TABLES } from '../../../engine/platform/store/sql/tables.ts';

const SQL_TYPES = { text: 'text', boolean: 'boolean', integer: 'integer', timestamptz: 'timestamp with time zone', jsonb: 'jsonb' } as const;

/**
 * The SQL stores read and write the columns tables.ts names, and refuse a
 * field it does not name; the migrations make the tables. The two are held
 * to each other here: after every migration, each table has exactly the
 * columns of its map, of its type, NOT NULL only where the field is
 * required. (A record field added without its migration and map entry fails
 * in the store at its first write, naming the field.)
 */
describe('the SQL schema (migrations) and the column map (tables.ts)', function () {
  this.timeout(60_000);

  it('every table the migrations make has exactly the columns of the map, their types and nullability', async () => {
    const pg = await PGlite.create();
    const db = new Kysely<any>({ dialect: pgliteDialect(() => pg) });
    try {
      await migrateToLatest(db);
      const { rows } = await pg.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
        `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE 'igw_%' ORDER BY table_name, column_name`,
      );
      const actual = rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === 'NO' ? ' not null' : ''}`);
      const expected = Object.values(TABLES)
        .flatMap((table) => [...table.columns.values()].map((c) => `${table.name}.${c.column} ${SQL_TYPES[c.type]}${c.presence === 'required' ? ' not null' : ''}`))
        .sort();
      expect(actual).to.deep.equal(expected);
    } finally {
      await db.destroy();
      await pg.close();
    }
  });
});
