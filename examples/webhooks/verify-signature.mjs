// Verifies a webhook from the integration gateway. Node 18+, no dependencies.
// rawBody: the request body exactly as received (string or Buffer), before any JSON parsing.
// header:  the Gateway-Signature header, "t=<unix seconds>,v1=<hex HMAC-SHA256>".
// secret:  the endpoint's signing secret (whsec_...), as POST /v2/webhooks or rotate-secret answered it.
// Answers the event ({id, type, createdOn, companyId, data}); throws when the webhook must be refused.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyWebhook(rawBody, header, secret, toleranceSeconds = 300, nowMs = Date.now()) {
  const fields = new Map(String(header ?? '').split(',').map((part) => {
    const at = part.indexOf('=');
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  }));
  const timestamp = Number(fields.get('t'));
  const given = fields.get('v1') ?? '';
  if (!Number.isSafeInteger(timestamp) || !/^[0-9a-f]{64}$/.test(given)) {
    throw new Error('malformed Gateway-Signature header');
  }
  // A signature older (or newer) than the tolerance is refused: a replayed request, or a clock far off.
  if (Math.abs(nowMs / 1000 - timestamp) > toleranceSeconds) {
    throw new Error('Gateway-Signature timestamp is outside the tolerance');
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) {
    throw new Error('Gateway-Signature does not match the body');
  }
  return JSON.parse(String(rawBody));
}
