import type { FieldProblem } from '../../platform/errors/index.ts';
import { cutText } from '../../platform/cut-text.ts';

/**
 * Every rule a caller's arguments can break, by stable name. A VALIDATION_ERROR
 * lists one FieldProblem per broken rule and argument: `field` is the argument
 * key as the caller sends it (`address.country`, `lineItems[1].sku`,
 * `tags[2]`), `rule` one of these names. docs/arguments.md explains each, and
 * the golden cases cover each.
 */
export const ARGUMENT_RULES = {
  unknown: 'the key is not an argument of the action (nor `cursor` when the action pages); catches typos',
  hidden: 'a hidden argument was set; it cannot be, it always sends its default',
  required: 'a required argument (or a path parameter) has no value',
  type: 'the value is not of the data type and cannot be coerced to it',
  integer: 'a number has a fraction where integer: true wants a whole number',
  minimum: 'a number is below minimum',
  maximum: 'a number is above maximum',
  minLength: 'a string is shorter than minLength',
  maxLength: 'a string is longer than maxLength',
  pattern: 'a string does not match pattern',
  format: 'a string is not of its format (email, uri, date-time)',
  option: 'a Fixed list value is not one of the options',
  country: 'a Country list value is not an ISO 3166-1 alpha-2 code',
  currency: 'a Currency list value is not an ISO 4217 code',
  lookup: 'a strict Lookup list value is not among the options on the first page the lookup action returns',
  mapper: "the argument's mapper failed on the value",
  cursor: 'the cursor is not the meta.cursor of the previous page of this action and connection, sent unchanged (tampered, of another action or connection, too long, or a next URL on another origin)',
  hostVariable: 'a {{placeholder}} of the base URL or a header has no value, or a value that cannot go there',
  header: 'a Header argument whose value cannot be a header value: a line break or other control character, or an object',
  pathSegment: 'a path parameter with a . or .. segment, or (allowSlashes) an empty segment',
  delimiter: 'a value of a multi-value argument holds the delimiter its values are joined with (the app would read it as more than one value)',
} as const;

export type ArgumentRule = keyof typeof ARGUMENT_RULES;

export function problem(field: string, rule: ArgumentRule, message: string): FieldProblem {
  return { field, rule, message };
}

/** A value as a short, safe fragment of a message. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${cutText(text, 57)}...` : text;
}
