import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * pg's pool as Kysely's dialect takes it, each query sent in pg's callback
 * form. Kysely's driver calls `client.query(sql, parameters)` without a
 * callback, and on pg 8.23 with Node 20 a query sent that way left its result
 * alive through the next young-generation GC: every scavenge found ~1.85 MB
 * of 100-row list pages still live, copied and promoted them, and took 10-18
 * ms instead of 0.5 (a pause that lands in one request of twenty: lists' p99
 * was their p50 plus one scavenge). The same query with a callback, wrapped
 * in a promise here, leaves nothing behind (`npm run bench:pg-gc` shows both
 * on a throwaway cluster). One wrapper per pg client, so that Kysely's
 * driver, which keys its connections by client, keeps finding its own.
 */
export function callbackQueries(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/** What pg says when no answer came within query_timeout (open-postgres.ts). */
const NO_ANSWER = 'Query read timeout';

function wrap(client: pg.PoolClient): PostgresPoolClient {
  // A connection whose query got no answer in time is given back to be closed, not reused: the server may still
  // answer that query on it, or never answer anything again.
  let unanswered = false;
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(sqlOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // A cursor (Kysely's streamQuery, unused by the store) goes to pg as it is.
    if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as never) as unknown as PostgresCursor<R>;
    return new Promise((resolve, reject) => {
      client.query(sqlOrCursor, parameters as unknown[], (error: Error | undefined, result: pg.QueryResult) => {
        if (error) {
          if (error.message === NO_ANSWER) unanswered = true;
          reject(error);
        } else resolve(result as unknown as PostgresQueryResult<R>);
      });
    });
  }
  return { query, release: (destroy?: boolean) => client.release(destroy || unanswered || undefined) };
}
