import { secretValues } from './secret-values.ts';

/** The longest piece of a provider's text a message, log line or redirect carries (characters, before the ellipsis). */
export const PROVIDER_TEXT_MAX = 200;

export const REDACTED = '[redacted]';

/**
 * A provider's own words (an OAuth `error` or `error_description`, an error
 * body), made safe to put in a message, a log line or a redirect: every
 * secret the gateway sent it (`secrets`, by value: as sent, percent-encoded,
 * `+` for spaces) replaced with `[redacted]`, control characters turned into
 * spaces, and the whole cut to `max` characters with an ellipsis. Redaction
 * comes before the cut, so a secret is never left half-shown. The one
 * function every such text goes through.
 */
export function providerText(text: unknown, secrets: readonly unknown[], max = PROVIDER_TEXT_MAX): string {
  let safe = typeof text === 'string' ? text : JSON.stringify(text) ?? '';
  for (const secret of secretValues(...secrets)) safe = safe.split(secret).join(REDACTED);
  safe = safe.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return safe.length > max ? `${safe.slice(0, max)}…` : safe;
}
