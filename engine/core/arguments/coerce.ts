import type { Argument } from '../definitions/generated/definition-types.ts';
import { formatDate, parseIsoDate, type DateFormat } from './dates.ts';
import { shown, type ArgumentRule } from './rules.ts';
import { isJsonObject } from '../../platform/json-object.ts';

export type Checked = { ok: true; value: unknown } | { ok: false; rule: ArgumentRule; message: string };

export const accept = (value: unknown): Checked => ({ ok: true, value });
export const reject = (rule: ArgumentRule, message: string): Checked => ({ ok: false, rule, message });

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A single value checked against a scalar data type and coerced to what is
 * sent: callers often only have text (a query string, a form field), so text
 * that clearly is a number, a boolean or a date is taken as one.
 *
 *   String   "abc"; 5 and true become "5" and "true"
 *   Number   5; "5", " -1.5e3 " become 5, -1500; "5px", NaN, Infinity are errors
 *   Boolean  true; "true"/"false" in any case become booleans; 1, "yes" are errors
 *   Date     ISO 8601 text, sent in the argument's `format`
 */
export function coerceScalar(dataType: Argument['dataType'], value: unknown, format: DateFormat | undefined): Checked {
  switch (dataType) {
    case 'String':
      if (typeof value === 'string') return accept(value);
      if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return accept(String(value));
      return reject('type', `must be a string (got ${shown(value)})`);
    case 'Number':
      if (typeof value === 'number' && Number.isFinite(value)) return accept(value);
      if (typeof value === 'string' && DECIMAL.test(value.trim()) && Number.isFinite(Number(value.trim()))) return accept(Number(value.trim()));
      return reject('type', `must be a number (got ${shown(value)})`);
    case 'Boolean':
      if (typeof value === 'boolean') return accept(value);
      if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return accept(value.trim().toLowerCase() === 'true');
      return reject('type', `must be true or false (got ${shown(value)})`);
    case 'Date': {
      if (typeof value !== 'string') return reject('type', `must be an ISO 8601 date string such as 2024-05-01T12:00:00Z (got ${shown(value)})`);
      const parsed = parseIsoDate(value.trim());
      return 'ms' in parsed ? accept(formatDate(parsed.ms, format)) : reject('type', parsed.reason);
    }
    case 'Object':
      return isJsonObject(value) ? accept(value) : reject('type', `must be an object (got ${shown(value)})`);
    case 'Array':
      return Array.isArray(value) ? accept(value) : reject('type', `must be an array (got ${shown(value)})`);
    case 'List':
      return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
        ? accept(value)
        : reject('type', `must be one option's value: a string, number or boolean (got ${shown(value)})`);
  }
}
