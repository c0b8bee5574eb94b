import { GatewayError } from '../errors/index.ts';

/**
 * The store could not be reached for one operation (the server is down or
 * restarting, the connection dropped, no connection could be had in time):
 * 503 STORE_UNAVAILABLE, never a 500. Nothing was half-written: a write
 * either committed before the fault or is not there. The next request tries
 * again, so the gateway recovers by itself once the store is back.
 */
export function storeUnavailableError(reason: string): GatewayError {
  return GatewayError.of('STORE_UNAVAILABLE', `the store is unavailable (${reason}); try again shortly`);
}
