/**
 * The JSON Schema of "any JSON value": what an open object (metadata,
 * arguments, settings, a mapping's meta) holds under each key. Written as a
 * schema with no constraint, so JSON Schema validators accept anything and
 * OpenAPI generators type it `unknown` (a missing `additionalProperties`
 * reads as "no properties" to them).
 */
export const anyJsonValue = { description: 'Any JSON value.' } as const;
