import type { FieldProblem } from '../../platform/errors/index.ts';
import type { ArgumentEntry } from '../definitions/index.ts';
import { checkValueRules } from '../arguments/value-rules.ts';

/** A value a connection holds besides the auth's own arguments (tokens an OAuth auth keeps, say). */
export interface ExtraField {
  key: string;
  type: 'string';
  required: boolean;
  format?: 'date-time';
}

/**
 * Checks the values given when a connection is created against the
 * arguments that ask for them (the auth's arguments for credentials, the
 * API's for host variables): required ones present, types right, Fixed list
 * values among the options, strings within maxLength. Unknown keys are
 * problems when `strict` (credentials: a typo must not be stored silently).
 */
export function checkValues(
  field: string,
  values: Record<string, unknown>,
  args: readonly ArgumentEntry[],
  options: { strict: boolean; extra?: readonly ExtraField[] },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const known = new Set<string>();
  // A kind's field the auth also declares as an argument (clientId, say) is one field: checked once, the kind's rule first, then the argument's.
  const kindProblems = new Map<string, FieldProblem | null>();
  for (const extra of options.extra ?? []) {
    known.add(extra.key);
    const value = values[extra.key];
    const at = `${field}.${extra.key}`;
    let problem: FieldProblem | null = null;
    if (value === undefined) {
      if (extra.required) problem = { field: at, rule: 'required', message: 'is required' };
    } else if (typeof value !== 'string' || value === '') {
      problem = { field: at, rule: 'type', message: 'must be a non-empty string' };
    } else if (extra.format === 'date-time' && Number.isNaN(Date.parse(value))) {
      problem = { field: at, rule: 'format', message: 'must be an ISO 8601 date-time' };
    }
    if (args.some((arg) => !arg.parent && arg.key === extra.key)) kindProblems.set(extra.key, problem);
    else if (problem) problems.push(problem);
  }
  for (const arg of args) {
    if (arg.parent) continue;
    known.add(arg.key);
    const kindProblem = kindProblems.get(arg.key);
    if (kindProblem) {
      problems.push(kindProblem);
      continue;
    }
    const value = values[arg.key];
    const at = `${field}.${arg.key}`;
    if (value === undefined || value === null || value === '') {
      if (arg.required && arg.default === undefined) problems.push({ field: at, rule: 'required', message: 'is required' });
      continue;
    }
    const problem = checkOne(arg, value);
    if (problem) problems.push({ field: at, ...problem });
  }
  if (options.strict) {
    for (const key of Object.keys(values)) {
      if (!known.has(key)) {
        const expected = [...known].join(', ') || 'none';
        problems.push({ field: `${field}.${key}`, rule: 'unknown', message: `is not an argument of this auth (expected: ${expected})` });
      }
    }
  }
  return problems;
}

function checkOne(arg: ArgumentEntry, value: unknown): { rule: string; message: string } | null {
  switch (arg.dataType) {
    case 'String':
      if (typeof value !== 'string') return { rule: 'dataType', message: 'must be a string' };
      if (arg.maxLength !== undefined && value.length > arg.maxLength) return { rule: 'maxLength', message: `must be at most ${arg.maxLength} characters` };
      return ruleProblem(arg, value);
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value) ? ruleProblem(arg, value) : { rule: 'dataType', message: 'must be a number' };
    case 'Boolean':
      return typeof value === 'boolean' ? null : { rule: 'dataType', message: 'must be a boolean' };
    case 'List': {
      if (arg.list?.type !== 'Fixed') return null;
      const allowed = arg.list.options.map((o) => o.value);
      return allowed.includes(value as never) ? null : { rule: 'list', message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
    }
    default:
      return null;
  }
}

/**
 * The argument's other value rules (pattern, minLength, a String format, integer, minimum, maximum), as a run
 * checks them, so a value no run would accept is not stored. The value may be a secret: the message never shows it.
 */
function ruleProblem(arg: ArgumentEntry, value: string | number): { rule: string; message: string } | null {
  const checked = checkValueRules(arg, value);
  return checked.ok ? null : { rule: checked.rule, message: checked.message.replace(/ \(got .*\)$/s, '') };
}
