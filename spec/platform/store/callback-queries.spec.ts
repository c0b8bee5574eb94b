import { expect } from 'chai';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { callbackQueries } from '../../../engine/platform/store/sql/callback-queries.ts';
import { freshDatabase, postgresOrSkip } from '../../helpers/postgres.ts';

/**
 * The pool the PostgreSQL store gives Kysely (callback-queries.ts): rows, errors and transactions as with
 * pg's own pool, and one wrapper per pg client (Kysely's driver keys its connections by client). What it is
 * for, the young-generation GC it spares, is measured by `npm run bench:pg-gc`, not here.
 */
describe('PostgreSQL queries in callback form (callbackQueries)', function () {
  this.timeout(60_000);
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let db: Kysely<any>;

  before(async function () {
    postgresOrSkip(this, 'callbackQueries');
    database = await freshDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool: callbackQueries(pool) }) });
    await sql`CREATE TABLE things (id text PRIMARY KEY, n integer NOT NULL)`.execute(db);
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('answers rows and affected counts as pg does', async () => {
    const inserted = await db.insertInto('things').values([{ id: 'a', n: 1 }, { id: 'b', n: 2 }]).executeTakeFirstOrThrow();
    expect(Number(inserted.numInsertedOrUpdatedRows)).to.equal(2);
    expect(await db.selectFrom('things').selectAll().orderBy('id').execute()).to.deep.equal([{ id: 'a', n: 1 }, { id: 'b', n: 2 }]);
  });

  it("rejects with pg's own error, its SQLSTATE kept (the store translates it)", async () => {
    const failed = await db.insertInto('things').values({ id: 'a', n: 3 }).execute().then(() => null, (error: unknown) => error);
    expect(failed).to.be.instanceOf(pg.DatabaseError);
    expect(failed).to.have.property('code', '23505');
  });

  it('runs a transaction on one connection and rolls it back', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('things').values({ id: 'c', n: 3 }).execute();
      expect(await trx.selectFrom('things').select('id').where('id', '=', 'c').execute()).to.have.length(1);
      throw new Error('undo');
    }).catch((error: Error) => expect(error.message).to.equal('undo'));
    expect(await db.selectFrom('things').select('id').where('id', '=', 'c').execute()).to.deep.equal([]);
  });

  it('hands out the same wrapper for the same pg client', async () => {
    const wrapped = callbackQueries(pool);
    const first = await wrapped.connect();
    first.release();
    const second = await wrapped.connect();
    second.release();
    expect(second).to.equal(first);
  });
});
