import { GatewayError } from '../../errors/index.ts';

/**
 * Every query the MongoDB adapter sends carries `maxTimeMS`
 * (STORE_QUERY_TIMEOUT_MS), so no filter can hold the server, or the request
 * waiting on it, longer than that. The server ends such a query with
 * MaxTimeMSExpired (code 50); the client sees 503 QUERY_TIMEOUT naming the
 * limit, not an internal error (mongo-store.ts tells that error apart: this
 * file does not import the driver, since config.ts reads the default and the
 * embedded store never loads mongodb).
 */
export const DEFAULT_STORE_QUERY_TIMEOUT_MS = 5_000;

export function queryTimeoutError(limitMs: number): GatewayError {
  return GatewayError.of(
    'QUERY_TIMEOUT',
    `the store did not finish the query within STORE_QUERY_TIMEOUT_MS (${limitMs} ms); narrow the request (a more selective where) or try again`,
    { limitMs, setting: 'STORE_QUERY_TIMEOUT_MS' },
  );
}
