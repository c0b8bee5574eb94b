import type { Argument } from '../generated/definition-types.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem, type ProblemCode } from '../problems.ts';
import { isDateFormat } from '../../arguments/dates.ts';
import { escapeSettingsProblem } from '../../arguments/escape.ts';
import { headerText } from '../../arguments/host-variables.ts';
import { checkRules, defaultBreaksRules, shownDefault } from './argument-rule-checks.ts';
import { isJsonObject } from '../../../platform/json-object.ts';

const CONTAINERS = new Set(['Object', 'Array']);

/**
 * The rules of one arguments list that a schema cannot say: keys are unique,
 * parents exist and hold children, Object children's external keys start
 * with the parent's, a hidden required argument has a default, defaults fit
 * the data type, and maxLength, list and format fit the data type; the
 * value rules (argument-rule-checks.ts) fit it too, and the default keeps them.
 * `inAction`: top-level arguments of an action must say where they go.
 */
export function checkArguments(file: FileAnalysis, args: readonly Argument[], inAction: boolean): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const report = (i: number, field: string | null, code: ProblemCode, message: string) =>
    problems.push(problemAt(file.parsed!.locate(field === null ? ['arguments', i] : ['arguments', i, field]), code, message));

  const byKey = new Map<string, Argument>();
  args.forEach((arg, i) => {
    if (byKey.has(arg.key)) report(i, 'key', 'ARG_KEY_DUPLICATE', `argument key "${arg.key}" is used twice`);
    else byKey.set(arg.key, arg);
  });

  args.forEach((arg, i) => {
    const name = `argument "${arg.key}"`;
    if (arg.parent !== undefined) {
      const parent = byKey.get(arg.parent);
      if (!parent) {
        report(i, 'parent', 'ARG_PARENT_MISSING', `${name} names parent "${arg.parent}", which does not exist`);
      } else if (!CONTAINERS.has(parent.dataType)) {
        report(i, 'parent', 'ARG_PARENT_NOT_CONTAINER', `${name} names parent "${arg.parent}", which is a ${parent.dataType}; only Object and Array arguments have children`);
      } else if (inCycle(arg, byKey)) {
        report(i, 'parent', 'ARG_PARENT_CYCLE', `${name} is its own ancestor through parent "${arg.parent}"`);
      } else if (parent.dataType === 'Object' && arg.externalKey !== undefined) {
        const prefix = `${parent.externalKey ?? parent.key}.`;
        if (!arg.externalKey.startsWith(prefix)) {
          report(i, 'externalKey', 'ARG_CHILD_EXTERNAL_KEY', `${name} is a child of "${parent.key}", so its externalKey must start with "${prefix}" (got "${arg.externalKey}")`);
        }
      }
    } else if (inAction && arg.location === undefined) {
      report(i, null, 'ARG_LOCATION_MISSING', `${name} needs a location (Query, Body, Param or Header); only children take their parent's`);
    }
    if (arg.allowSlashes !== undefined && (arg.location !== 'Param' || arg.parent !== undefined)) {
      report(i, 'allowSlashes', 'ARG_SLASHES_NOT_PARAM', `${name} is not a Param argument (a :segment of the path); allowSlashes applies only to Param arguments`);
    }

    if (arg.asBody !== undefined) {
      if (arg.location !== 'Body' || arg.parent !== undefined || arg.dataType !== 'Object') {
        report(i, 'asBody', 'ARG_AS_BODY_INVALID', `${name} is not a top-level Object argument in the Body; asBody makes such an argument's fields the body's own`);
      } else if (args.findIndex((other) => other.asBody !== undefined && other.location === 'Body' && other.parent === undefined && other.dataType === 'Object') !== i) {
        report(i, 'asBody', 'ARG_AS_BODY_INVALID', `${name}: another argument is the body already (asBody); an action has one body`);
      }
    }

    if (arg.escape !== undefined) {
      const wrong = escapeSettingsProblem(arg.escape);
      if (wrong) report(i, 'escape', 'ARG_ESCAPE_INVALID', `${name}: ${wrong}`);
    }

    if (arg.hidden && arg.required && arg.default === undefined) {
      report(i, 'hidden', 'ARG_HIDDEN_REQUIRED_NO_DEFAULT', `${name} is hidden and required but has no default, so nobody could fill it`);
    }
    if (arg.default !== undefined) {
      const mismatch = defaultMismatch(arg);
      if (mismatch) report(i, 'default', 'ARG_DEFAULT_TYPE', `${name}: default ${JSON.stringify(arg.default)} ${mismatch}`);
    }
    const elementType = arg.multipleValues?.dataType ?? arg.dataType;
    if (arg.maxLength !== undefined && elementType !== 'String') {
      report(i, 'maxLength', 'ARG_MAX_LENGTH_NOT_STRING', `${name} is a ${elementType}; maxLength applies only to String values`);
    }
    if (arg.dataType === 'List' && arg.list === undefined) {
      report(i, 'dataType', 'ARG_LIST_SETTINGS', `${name} is a List, so it needs list settings (type Fixed, Lookup, Country or Currency)`);
    } else if (arg.dataType !== 'List' && arg.list !== undefined) {
      report(i, 'list', 'ARG_LIST_SETTINGS', `${name} is a ${arg.dataType}; list settings apply only to List arguments`);
    }
    if (arg.format !== undefined && isDateFormat(arg.format) && elementType !== 'Date') {
      report(i, 'format', 'ARG_FORMAT_NOT_DATE', `${name} is a ${elementType}; an output format applies only to Date values`);
    }
    const ruleProblems = checkRules(arg);
    for (const { field, code, message } of ruleProblems) report(i, field, code, `${name}${message}`);
    if (arg.default !== undefined && ruleProblems.length === 0 && defaultMismatch(arg) === null) {
      const broken = defaultBreaksRules(arg) ?? headerDefaultProblem(arg);
      if (broken) report(i, 'default', 'ARG_DEFAULT_RULE', `${name}: default ${shownDefault(arg.default)} ${broken}`);
    }
  });
  return problems;
}

/**
 * What a Header argument's default breaks of what a header can carry (the run's check, engine/core/arguments/placement.ts),
 * or null. A caller is never refused for a value they did not send; a mapper may make the value another one, so a
 * default a mapper rewrites is left to the run.
 */
function headerDefaultProblem(arg: Argument): string | null {
  if (arg.location !== 'Header' || arg.mapper !== undefined) return null;
  const values = Array.isArray(arg.default) ? arg.default : [arg.default];
  if (values.some((v) => v !== null && typeof v === 'object')) return null;
  const header = arg.externalKey ?? arg.key;
  const checked = headerText(values.map((v) => String(v)).join(', '));
  if (checked === null) return `is sent in header ${header}, so it must not contain line breaks or other control characters (rule header)`;
  if (typeof checked !== 'string') return `is sent in header ${header}, so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign) (rule header)`;
  return null;
}

function inCycle(arg: Argument, byKey: Map<string, Argument>): boolean {
  const seen = new Set<string>([arg.key]);
  let parent = arg.parent === undefined ? undefined : byKey.get(arg.parent);
  while (parent) {
    // Only members of the loop are reported; an argument merely hanging off a loop is not.
    if (seen.has(parent.key)) return parent.key === arg.key;
    seen.add(parent.key);
    parent = parent.parent === undefined ? undefined : byKey.get(parent.parent);
  }
  return false;
}

/** Why a default does not fit its argument, or null when it does. */
export function defaultMismatch(arg: Argument): string | null {
  const value: unknown = arg.default;
  if (arg.multipleValues) {
    if (!Array.isArray(value)) return `must be an array of ${arg.multipleValues.dataType} values (multipleValues)`;
    const bad = value.find((v) => scalarMismatch(arg.multipleValues!.dataType, v) !== null);
    return bad === undefined ? null : `has ${JSON.stringify(bad)}, which is not a ${arg.multipleValues.dataType}`;
  }
  if (arg.dataType === 'List') {
    if (arg.list?.type === 'Fixed') {
      return arg.list.options.some((o) => o.value === value)
        ? null
        : `is not one of the options (${arg.list.options.map((o) => JSON.stringify(o.value)).join(', ')})`;
    }
    return typeof value === 'string' || typeof value === 'number' ? null : 'must be a string or number';
  }
  return scalarMismatch(arg.dataType, value);
}

function scalarMismatch(dataType: Argument['dataType'], value: unknown): string | null {
  switch (dataType) {
    case 'String':
      return typeof value === 'string' ? null : 'must be a string';
    case 'Number':
      return typeof value === 'number' ? null : 'must be a number';
    case 'Boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'Date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : 'must be a date string such as 2024-05-01 or 2024-05-01T12:00:00Z';
    case 'Object':
      return isJsonObject(value) ? null : 'must be an object';
    case 'Array':
      return Array.isArray(value) ? null : 'must be an array';
    default:
      return null;
  }
}
