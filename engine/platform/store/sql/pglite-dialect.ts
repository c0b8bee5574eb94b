import { PostgresDialect, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import { storeUnavailableError } from '../store-unavailable.ts';
import type { PgliteQueryable } from './pglite-thread.ts';

/**
 * Holders that may wait for the connection. The gateway's thread is free while a query runs (pglite-thread.ts),
 * so it goes on taking requests: past this many waiting, a request that needs the store answers 503
 * STORE_UNAVAILABLE at once instead of queueing without bound (as a PostgreSQL pool refuses a request that
 * waited too long for a connection).
 */
export const MAX_WAITING = 1_000;

/**
 * Kysely's PostgreSQL dialect over PGlite. PGlite is one connection, so the
 * "pool" hands it to one holder at a time: a query, or a transaction until
 * it ends; the others wait their turn. (A request's own queries during its
 * transaction go through the transaction: sql-store.ts.) `connect` gives the
 * connection for one holder: the embedded store's PGlite thread (pglite-thread.ts)
 * binds it to the thread running then, so a transaction never continues on
 * another; a PGlite instance (the schema spec) is its own. The waiting line is
 * first come, first served, and bounded (MAX_WAITING).
 */
export function pgliteDialect(connect: () => Promise<PgliteQueryable> | PgliteQueryable, maxWaiting = MAX_WAITING): PostgresDialect {
  let held = false;
  const waiting: (() => void)[] = [];
  let idle: (() => void) | null = null;
  /** The turn passes to the next holder waiting, once per holder. */
  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) return next();
      held = false;
      idle?.();
    };
  };

  const client = (pg: PgliteQueryable, release: () => void) =>
    ({
      async query<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
        const result = await pg.query<R>(text, parameters as unknown[]);
        return { command: command(text), rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
      },
      release,
    }) as unknown as PostgresPoolClient;

  const pool: PostgresPool = {
    async connect() {
      if (held) {
        if (waiting.length >= maxWaiting) throw storeUnavailableError(`${waiting.length} requests are waiting for it`);
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      held = true;
      const release = releaser();
      try {
        return client(await connect(), release);
      } catch (error) {
        release();
        throw error;
      }
    },
    async end() {
      if (held) await new Promise<void>((resolve) => (idle = resolve));
    },
  };
  return new PostgresDialect({ pool });
}

/** The statement's command, as pg reports it (Kysely reads affected rows for INSERT, UPDATE, DELETE, MERGE). */
function command(text: string): PostgresQueryResult<unknown>['command'] {
  const word = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase();
  return (word === 'INSERT' || word === 'UPDATE' || word === 'DELETE' || word === 'MERGE' ? word : 'SELECT') as PostgresQueryResult<unknown>['command'];
}
