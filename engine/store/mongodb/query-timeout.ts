import { MongoServerError } from 'mongodb';
import { GatewayError } from '../../errors/index.ts';

/**
 * Every query the MongoDB adapter sends carries `maxTimeMS`
 * (STORE_QUERY_TIMEOUT_MS), so no filter can hold the server, or the request
 * waiting on it, longer than that. The server ends such a query with
 * MaxTimeMSExpired (code 50); the client sees 503 QUERY_TIMEOUT naming the
 * limit, not an internal error.
 */
export const DEFAULT_STORE_QUERY_TIMEOUT_MS = 5_000;

const MAX_TIME_MS_EXPIRED = 50;

export function isQueryTimeout(error: unknown): boolean {
  return error instanceof MongoServerError && (error.code === MAX_TIME_MS_EXPIRED || error.codeName === 'MaxTimeMSExpired');
}

export function queryTimeoutError(limitMs: number): GatewayError {
  return GatewayError.of(
    'QUERY_TIMEOUT',
    `the store did not finish the query within STORE_QUERY_TIMEOUT_MS (${limitMs} ms); narrow the request (a more selective where) or try again`,
    { limitMs, setting: 'STORE_QUERY_TIMEOUT_MS' },
  );
}
