/**
 * The envelope's flags (`success`, `meta.authenticated`,
 * `meta.tooManyRequests`) are booleans, whatever a mapping returned: a
 * mapping's `true` or `false` stands; anything else (`"maybe"`, `"no"`, the
 * string `"false"`, `1`, null) counts as not said, and the response's status
 * decides as when the mapping leaves the flag out. JSONata itself reads any
 * non-empty string as true, so no string is read as a boolean here.
 * `npm run validate` refuses a value there that is certainly not a boolean
 * (ENVELOPE_FLAG_NOT_BOOLEAN, engine/core/definitions/envelope-flags.ts).
 */
export function flagOf(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** What the status implies when the mapping does not say: success on 2xx; not authenticated on a 401; too many requests on a 429. */
export function statusFlags(status: number): { success: boolean; authenticated?: boolean; tooManyRequests?: boolean } {
  return {
    success: status >= 200 && status < 300,
    ...(status === 401 ? { authenticated: false } : {}),
    ...(status === 429 ? { tooManyRequests: true } : {}),
  };
}
