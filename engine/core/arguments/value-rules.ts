import type { Argument } from '../definitions/generated/definition-types.ts';
import { accept, reject, type Checked } from './coerce.ts';
import { matchesPattern } from './pattern.ts';
import { shown } from './rules.ts';
import { FORMAT_SHAPES, hasFormat, isStringFormat } from './string-formats.ts';

/** The part of an argument that holds a single value to rules; with multipleValues, each value. */
export type ValueRules = Pick<Argument, 'integer' | 'minimum' | 'maximum' | 'minLength' | 'maxLength' | 'pattern' | 'format'>;

/** The longest piece of a pattern a message quotes: the pattern is the author's, but a message stays readable. */
const PATTERN_SHOWN = 100;

/**
 * A coerced single value held to its argument's rules: for a number
 * integer, minimum, maximum (inclusive); for a string minLength, maxLength
 * (in characters: code points, so `é` counts once), pattern (a match
 * anywhere, on the linear-time engine) and a String format. The first rule
 * broken is the value's problem; a message names the limit and shows at
 * most a short piece of the value.
 */
export function checkValueRules(rules: ValueRules, value: unknown): Checked {
  if (typeof value === 'number') {
    if (rules.integer && !Number.isInteger(value)) return reject('integer', `must be a whole number (got ${shown(value)})`);
    if (rules.minimum !== undefined && value < rules.minimum) return reject('minimum', `must be at least ${rules.minimum} (got ${shown(value)})`);
    if (rules.maximum !== undefined && value > rules.maximum) return reject('maximum', `must be at most ${rules.maximum} (got ${shown(value)})`);
  } else if (typeof value === 'string') {
    const hasLengthRule = rules.minLength !== undefined || rules.maxLength !== undefined;
    const length = hasLengthRule ? [...value].length : 0;
    if (rules.minLength !== undefined && length < rules.minLength) return reject('minLength', `must be at least ${rules.minLength} characters (got ${length})`);
    if (rules.maxLength !== undefined && length > rules.maxLength) return reject('maxLength', `must be at most ${rules.maxLength} characters (got ${length})`);
    if (rules.pattern !== undefined && !matchesPattern(rules.pattern, value)) {
      const pattern = rules.pattern.length > PATTERN_SHOWN ? `${rules.pattern.slice(0, PATTERN_SHOWN - 3)}...` : rules.pattern;
      return reject('pattern', `must match the pattern ${pattern} (got ${shown(value)})`);
    }
    if (isStringFormat(rules.format) && !hasFormat(rules.format, value)) return reject('format', `must be ${FORMAT_SHAPES[rules.format]} (got ${shown(value)})`);
  }
  return accept(value);
}

/**
 * A value of a multi-value argument joined with a delimiter that holds the delimiter itself ("b|c" with "|"): the
 * app would read it as two values. Not looked for where the argument escapes its values (the escape may encode it).
 */
export function delimiterProblem(arg: Pick<Argument, 'multipleValues' | 'escape'>, value: unknown): { rule: 'delimiter'; message: string } | null {
  const delimiter = arg.multipleValues?.delimiter;
  if (delimiter === undefined || delimiter === '' || arg.escape !== undefined) return null;
  if (!(typeof value === 'string' ? value : String(value)).includes(delimiter)) return null;
  return { rule: 'delimiter', message: `holds ${JSON.stringify(delimiter)}, which its values are joined with: the app would read it as more than one value` };
}
