import { createHmac, randomBytes } from 'node:crypto';

/** The header carrying the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'Gateway-Signature';
export const EVENT_ID_HEADER = 'Gateway-Event-Id';
export const EVENT_TYPE_HEADER = 'Gateway-Event-Type';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. The whole string is the HMAC key. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The Gateway-Signature value for a body sent at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}
