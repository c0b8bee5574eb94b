import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The signature on a credential-exchange request, so the customer's endpoint
 * knows the gateway sent it, and sent exactly this:
 *
 *   X-Signature = hex HMAC-SHA256(exchangeSecret,
 *     X-Timestamp + "\n" + X-Nonce + "\n" + METHOD + "\n" + path?query + "\n" + hex SHA-256(body bytes))
 *
 * X-Timestamp is Unix seconds, X-Nonce 16 random bytes (base64url, 22
 * characters), `path?query` the request target exactly as sent (the query
 * left out when there is none). The customer accepts a request within
 * REPLAY_WINDOW_SECONDS of its timestamp and each nonce once (README:
 * verifying the exchange request, with snippets in Node and Python).
 */
export const TIMESTAMP_HEADER = 'X-Timestamp';
export const NONCE_HEADER = 'X-Nonce';
export const SIGNATURE_HEADER = 'X-Signature';
export const REPLAY_WINDOW_SECONDS = 60;

export interface SignedParts {
  timestamp: number | string;
  nonce: string;
  method: string;
  /** The path and query of the request line, e.g. `/exchange?region=eu`. */
  target: string;
  body: string | Uint8Array;
}

export function signedText({ timestamp, nonce, method, target, body }: SignedParts): string {
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return `${timestamp}\n${nonce}\n${method.toUpperCase()}\n${target}\n${bodyHash}`;
}

export function exchangeSignature(secret: string, parts: SignedParts): string {
  return createHmac('sha256', secret).update(signedText(parts), 'utf8').digest('hex');
}

/** The headers that sign one request; a fresh nonce each time. */
export function signedExchangeHeaders(
  secret: string,
  request: { method: string; target: string; body: string | Uint8Array },
  now = Date.now(),
  nonce = randomBytes(16).toString('base64url'),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    [TIMESTAMP_HEADER]: String(timestamp),
    [NONCE_HEADER]: nonce,
    [SIGNATURE_HEADER]: exchangeSignature(secret, { timestamp, nonce, ...request }),
  };
}

/**
 * The signature and timestamp check a customer's endpoint runs (the README
 * snippets are the same in Node and Python, plus remembering nonces). The
 * nonce's single use is the caller's to enforce: `seen` answers whether it
 * was accepted before.
 */
export function verifyExchangeSignature(
  secret: string,
  request: { method: string; target: string; body: string | Uint8Array; timestamp: string | undefined; nonce: string | undefined; signature: string | undefined },
  now = Date.now(),
  seen: (nonce: string) => boolean = () => false,
): boolean {
  const { timestamp, nonce, signature } = request;
  if (!/^\d+$/.test(timestamp ?? '') || Math.abs(now / 1000 - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return false;
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(nonce ?? '') || seen(nonce!)) return false;
  const expected = Buffer.from(exchangeSignature(secret, { timestamp: timestamp!, nonce: nonce!, method: request.method, target: request.target, body: request.body }), 'hex');
  const given = Buffer.from(signature ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
