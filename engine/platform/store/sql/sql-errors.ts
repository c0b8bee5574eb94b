import { GatewayError } from '../../errors/index.ts';
import { DuplicateKeyError } from '../port.ts';
import { queryTimeoutError } from '../mongodb/query-timeout.ts';
import { storeUnavailableError } from '../store-unavailable.ts';

/** Network failures of the pg driver, and its own words for a connection that went away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const DRIVER_WORDS = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable|Query read timeout/i;

/**
 * A database error as the port reports it: a unique violation (23505) is a
 * DuplicateKeyError; statement_timeout ending a query (57014) is 503
 * QUERY_TIMEOUT; a server that cannot be reached, is shutting down or
 * refuses connections (class 08, 57P01-57P03, a network error) or has run out
 * of a resource (class 53: a full disk, 53100; memory; connections, 53300) is
 * 503 STORE_UNAVAILABLE. Anything else is passed on as it is (an internal error).
 */
export function translateSqlError(error: unknown, collection: string, queryTimeoutMs: number): unknown {
  if (error instanceof GatewayError || error instanceof DuplicateKeyError) return error;
  const e = error as { code?: unknown; message?: unknown; detail?: unknown; constraint?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === '23505') return new DuplicateKeyError(collection, String(e.constraint ?? e.detail ?? message));
  if (code === '57014' && /statement timeout/i.test(message)) return queryTimeoutError(queryTimeoutMs);
  if (code.startsWith('08') || code.startsWith('53') || ['57P01', '57P02', '57P03'].includes(code) || NETWORK_CODES.has(code) || DRIVER_WORDS.test(message)) {
    return storeUnavailableError(code ? `${code}: ${message}` : message);
  }
  return error;
}
