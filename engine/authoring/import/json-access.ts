import { isJsonObject } from '../../platform/json-object.ts';

/**
 * A description is a stranger's JSON: any field may hold any type. These read
 * a value as the type the reader needs, or give nothing, so a malformed
 * description is skipped field by field instead of crashing the import.
 */
export type Obj = Record<string, unknown>;

/** A JSON object (platform/json-object.ts), under this module's short name. */
export const isObj: (value: unknown) => value is Obj = isJsonObject;

export function obj(value: unknown): Obj | undefined {
  return isObj(value) ? value : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function entries(value: unknown): [string, unknown][] {
  return isObj(value) ? Object.entries(value) : [];
}

/** A `$ref` left in place by the resolver: a circular reference, read as a value of unknown shape. */
export function isRef(value: unknown): boolean {
  return isObj(value) && typeof value.$ref === 'string';
}
