import type { PGlite } from '@electric-sql/pglite';
import { PostgresDialect, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';

/**
 * Kysely's PostgreSQL dialect over PGlite. PGlite is one connection, so the
 * "pool" hands it to one holder at a time: a query, or a transaction until
 * it ends; the others wait their turn. (A request's own queries during its
 * transaction go through the transaction: sql-store.ts.)
 */
export function pgliteDialect(pg: PGlite): PostgresDialect {
  let turn: Promise<void> = Promise.resolve();

  const client = (release: () => void) =>
    ({
      async query<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
        const result = await pg.query<R>(text, parameters as unknown[]);
        return { command: command(text), rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
      },
      release,
    }) as unknown as PostgresPoolClient;

  const pool: PostgresPool = {
    async connect() {
      let release!: () => void;
      const previous = turn;
      turn = new Promise<void>((resolve) => (release = resolve));
      await previous;
      // PGlite runs a query on this thread, holding the event loop while it does. Between two queries the
      // loop turns once: requests that wait (a /health, a request that needs no store) are answered then,
      // instead of after every query queued behind this one.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return client(release);
    },
    async end() {
      await turn;
    },
  };
  return new PostgresDialect({ pool });
}

/** The statement's command, as pg reports it (Kysely reads affected rows for INSERT, UPDATE, DELETE, MERGE). */
function command(text: string): PostgresQueryResult<unknown>['command'] {
  const word = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase();
  return (word === 'INSERT' || word === 'UPDATE' || word === 'DELETE' || word === 'MERGE' ? word : 'SELECT') as PostgresQueryResult<unknown>['command'];
}
