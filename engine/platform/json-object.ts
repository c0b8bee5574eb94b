/**
 * Whether a parsed JSON value (or anything shaped like one) is an object: not null, not an array. What a
 * definition, an app's response, a mapping's result or a caller's body holds as `{...}`.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
