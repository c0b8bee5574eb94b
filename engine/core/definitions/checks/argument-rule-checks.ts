import type { Argument } from '../generated/definition-types.ts';
import type { ProblemCode } from '../problems.ts';
import { patternProblem } from '../../arguments/pattern.ts';
import { isStringFormat } from '../../arguments/string-formats.ts';
import { checkValueRules } from '../../arguments/value-rules.ts';

/** One problem of an argument's value rules, at the property it is about; `message` follows `argument "key"`. */
export interface RuleProblem {
  field: keyof Argument;
  code: ProblemCode;
  message: string;
}

const NUMBER_RULES = ['integer', 'minimum', 'maximum'] as const;
const STRING_RULES = ['minLength', 'pattern'] as const;

/**
 * The value rules (integer, minimum, maximum on Number values; minLength,
 * pattern and a String format on String values) fit the type of the
 * argument's values (with multipleValues, the values' type; a List's values
 * are options, held to no rule), some value can satisfy them, and the
 * pattern compiles on the linear-time engine. maxLength and the Date
 * formats keep their own codes (argument-checks.ts).
 */
export function checkRules(arg: Argument): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const valueType = arg.dataType === 'List' ? 'List' : (arg.multipleValues?.dataType ?? arg.dataType);
  const values = `its values are ${valueType === 'List' ? 'List options' : `${valueType}s`}`;
  for (const rule of NUMBER_RULES) {
    if (arg[rule] !== undefined && valueType !== 'Number') problems.push({ field: rule, code: 'ARG_RULE_TYPE', message: ` has ${rule}, which applies only to Number values (${values})` });
  }
  for (const rule of STRING_RULES) {
    if (arg[rule] !== undefined && valueType !== 'String') problems.push({ field: rule, code: 'ARG_RULE_TYPE', message: ` has ${rule}, which applies only to String values (${values})` });
  }
  if (isStringFormat(arg.format) && valueType !== 'String') {
    problems.push({ field: 'format', code: 'ARG_RULE_TYPE', message: ` has format ${arg.format}, which applies only to String values (${values}); a Date's formats are ISO8601, Date, UnixSeconds, UnixMilliseconds` });
  }
  if (arg.minimum !== undefined && arg.maximum !== undefined && arg.minimum > arg.maximum) {
    problems.push({ field: 'minimum', code: 'ARG_RULE_RANGE', message: `: minimum ${arg.minimum} is above maximum ${arg.maximum}, so no value could be accepted` });
  }
  if (arg.minLength !== undefined && arg.maxLength !== undefined && arg.minLength > arg.maxLength) {
    problems.push({ field: 'minLength', code: 'ARG_RULE_RANGE', message: `: minLength ${arg.minLength} is above maxLength ${arg.maxLength}, so no value could be accepted` });
  }
  if (arg.pattern !== undefined) {
    const why = patternProblem(arg.pattern);
    if (why !== null) {
      problems.push({
        field: 'pattern',
        code: 'ARG_PATTERN_INVALID',
        message: why.startsWith('Invalid regular expression')
          ? `: pattern ${JSON.stringify(arg.pattern)} is not a regular expression (${why})`
          : `: pattern ${JSON.stringify(arg.pattern)} cannot run on the linear-time engine (${why}); backreferences and lookaround are not supported`,
      });
    }
  }
  return problems;
}

/**
 * Why a default (already of the right type) breaks the argument's value
 * rules, or null when it keeps them: it is sent as the author wrote it, so a
 * caller is never refused for a value they did not give.
 */
export function defaultBreaksRules(arg: Argument): string | null {
  const valueType = arg.dataType === 'List' ? 'List' : (arg.multipleValues?.dataType ?? arg.dataType);
  if (valueType !== 'Number' && valueType !== 'String') return null;
  const values: unknown[] = arg.multipleValues ? (arg.default as unknown[]) : [arg.default];
  for (const value of values) {
    const checked = checkValueRules(arg, value);
    if (!checked.ok) {
      // The message's "(got ...)" would repeat the default the problem already shows.
      const broken = `${checked.message.replace(/ \(got .*\)$/s, '')} (rule ${checked.rule})`;
      return arg.multipleValues ? `has ${shownDefault(value)}, which ${broken}` : broken;
    }
  }
  return null;
}

/** A default in a message, at most 60 characters of its JSON. */
export function shownDefault(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
