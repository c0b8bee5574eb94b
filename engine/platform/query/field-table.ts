import { anyJsonValue } from '../validation/json-value.ts';

/**
 * What a list endpoint lets a client see, sort and filter: one entry per
 * field of the JSON it answers. The table is the allow-list: a field that is
 * not in it cannot be named in `fields`, `sort` or `where`, and the store
 * path a filter reaches is always the one written here, never the client's.
 */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'object';

export interface ListField {
  type: FieldType;
  /** The field may be null; `where` then accepts the unquoted value `null`. */
  nullable?: boolean;
  /** The record's field in the store, when it is not the JSON name. */
  path?: string;
  /** Every value the field can hold, when they are few and fixed (a status): `where` refuses another, naming these. */
  values?: readonly string[];
  description: string;
}

export type FieldTable = Readonly<Record<string, ListField>>;

/** Which comparison operators apply to which field type (after verbose forms like `=lt=` become `<`). */
export const OPERATORS_BY_TYPE: Readonly<Record<FieldType, readonly string[]>> = {
  string: ['==', '!=', '=in=', '=out=', '=like=', '<', '<=', '>', '>='],
  integer: ['==', '!=', '=in=', '=out=', '<', '<=', '>', '>='],
  number: ['==', '!=', '=in=', '=out=', '<', '<=', '>', '>='],
  boolean: ['==', '!=', '=in=', '=out='],
  'date-time': ['==', '!=', '=in=', '=out=', '<', '<=', '>', '>='],
  // An object field is compared by one of its keys (`settings.locale==de`), never as a whole.
  object: ['==', '!=', '=in=', '=out='],
};

export const SUPPORTED_OPERATORS = ['==', '!=', '>', '>=', '<', '<=', '=in=', '=out=', '=like='] as const;

/** The JSON Schema of one field's value in a response, for the OpenAPI document. */
export function fieldSchema(field: ListField): Record<string, unknown> {
  const base: Record<string, unknown> =
    field.type === 'date-time'
      ? { type: 'string', format: 'date-time' }
      : field.type === 'object'
        ? { type: 'object', additionalProperties: anyJsonValue }
        : { type: field.type };
  if (field.nullable) base.type = [base.type as string, 'null'];
  return { ...base, description: field.description };
}
