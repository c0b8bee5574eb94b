import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature on a credential-exchange request, so the customer's endpoint
 * knows the gateway sent it: HMAC-SHA256, hex, over
 * `<timestamp>\n<METHOD>\n<path>` with the shared secret. The timestamp (Unix
 * seconds) travels in X-Timestamp, the signature in X-Signature.
 */
export const TIMESTAMP_HEADER = 'X-Timestamp';
export const SIGNATURE_HEADER = 'X-Signature';

export function exchangeSignature(secret: string, timestamp: number, method: string, path: string): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${method.toUpperCase()}\n${path}`, 'utf8').digest('hex');
}

export function signedExchangeHeaders(secret: string, method: string, path: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: exchangeSignature(secret, timestamp, method, path) };
}

/**
 * What a customer's endpoint runs to check a request (documented for them;
 * the tests' fake customer uses it): the signature matches and the
 * timestamp is within the tolerance, so a captured request cannot be replayed later.
 */
export function verifyExchangeSignature(
  secret: string,
  request: { method: string; path: string; timestamp: string | undefined; signature: string | undefined },
  toleranceSeconds = 300,
  now = Date.now(),
): boolean {
  const timestamp = Number(request.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(exchangeSignature(secret, timestamp, request.method, request.path), 'hex');
  const given = Buffer.from(request.signature ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
