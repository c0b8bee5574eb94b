/** Shorter values are not looked for in text: a secret of one or two characters would match everywhere. */
export const MIN_SECRET_LENGTH = 4;

/**
 * The secret strings among `values` (strings, and the string leaves of
 * objects and arrays, such as a connection's sealed arguments), each once,
 * longest first (so a secret that contains another is found whole), in the
 * forms they travel in: as they are, percent-encoded (a query or form),
 * base64 (an HTTP Basic pair) and, beyond ASCII, as a header value written
 * in UTF-8 reads (utf8AsLatin1). What the redirect policy, the proxy's
 * redaction and the redaction of a provider's text look for.
 */
export function secretValues(...values: unknown[]): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (value.length < MIN_SECRET_LENGTH) return;
      found.add(value);
      for (const form of percentEncodedForms(value)) found.add(form);
      const read = utf8AsLatin1(value);
      if (read !== null) found.add(read);
    } else if (value && typeof value === 'object' && depth < 5) {
      for (const member of Object.values(value)) visit(member, depth + 1);
    }
  };
  for (const value of values) visit(value, 0);
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * A value percent-encoded as encoders write it: encodeURIComponent's, with `+` for spaces (a form), as
 * URLSearchParams writes it, as RFC 3986 strictly has it (`!'()*` encoded too: PHP's rawurlencode, Go's
 * url.PathEscape), and each in lowercase hex (`%2f`, as Python and others may write it).
 */
export function percentEncodedForms(value: string): string[] {
  const encoded = encodeURIComponent(value);
  const strict = encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const forms = [encoded, encoded.replace(/%20/g, '+'), new URLSearchParams({ v: value }).toString().slice(2), strict, strict.replace(/%20/g, '+')];
  const lower = (form: string) => form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  return [...new Set([...forms, ...forms.map(lower)])];
}

/**
 * A value beyond ASCII as its UTF-8 bytes read one character a byte
 * (Latin-1), or null for an ASCII value: how the HTTP client reads a header
 * value. The gateway sends `é` as the byte E9; an app that writes it back in
 * a header of its answer in UTF-8 (C3 A9, as most do) is read `Ã©`, which the
 * value as it is does not match, and which the caller decodes back at once.
 */
export function utf8AsLatin1(value: string): string | null {
  if (/^[\u0000-\u007f]*$/.test(value)) return null;
  return Buffer.from(value, 'utf8').toString('latin1');
}
