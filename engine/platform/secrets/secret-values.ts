/** Shorter values are not looked for in text: a secret of one or two characters would match everywhere. */
export const MIN_SECRET_LENGTH = 4;

/**
 * The secret strings among `values` (strings, and the string leaves of
 * objects and arrays, such as a connection's sealed arguments), each once,
 * longest first (so a secret that contains another is found whole), in the
 * forms they travel in: as they are, percent-encoded (a query or form) and
 * base64 (an HTTP Basic pair). What the redirect policy and the redaction of
 * a provider's text look for.
 */
export function secretValues(...values: unknown[]): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (value.length < MIN_SECRET_LENGTH) return;
      found.add(value);
      const encoded = encodeURIComponent(value);
      found.add(encoded);
      found.add(encoded.replace(/%20/g, '+'));
      found.add(new URLSearchParams({ v: value }).toString().slice(2));
    } else if (value && typeof value === 'object' && depth < 5) {
      for (const member of Object.values(value)) visit(member, depth + 1);
    }
  };
  for (const value of values) visit(value, 0);
  return [...found].sort((a, b) => b.length - a.length);
}
