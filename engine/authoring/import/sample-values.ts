import randexp from 'randexp';
import { matchesPattern } from '../../core/arguments/pattern.ts';
import { checkValueRules } from '../../core/arguments/value-rules.ts';
import type { Argument } from './imported-app.ts';
import { arr, isObj, num, str, type Obj } from './json-access.ts';
import { kebabId } from './naming.ts';
import { exampleOf, itemsOf, merged, objectShape, typeOf, variants } from './schema-shape.ts';

/** randexp is CommonJS (`module.exports = RandExp`) typed as an ES module: Node hands the class over as the default import. */
const RandExp = randexp as unknown as typeof import('randexp').default;

/** The most values one generated sample holds, and how deep it nests: a description's schemas may refer to each other without end. */
const SAMPLE_BUDGET = 400;
const SAMPLE_DEPTH = 6;
/** An example longer than this (as JSON) is not copied into a case: the case file is read by people. */
export const MAX_EXAMPLE_JSON = 20_000;

/**
 * A value of a JSON Schema, the same every time: its example, default,
 * const or first enum value, else one made from its type and format (one
 * item per array, every property of an object), within SAMPLE_BUDGET values
 * and SAMPLE_DEPTH levels (past them: nothing, an empty object or array).
 * Read-only properties are left out of request samples, write-only ones of
 * response samples.
 */
export function sampleOf(schema: unknown, purpose: 'request' | 'response'): unknown {
  const budget = { left: SAMPLE_BUDGET };
  return sample(schema, purpose, 0, budget);
}

function sample(raw: unknown, purpose: 'request' | 'response', depth: number, budget: { left: number }): unknown {
  if (budget.left-- <= 0 || depth > SAMPLE_DEPTH) return undefined;
  const schema = merged(raw);
  const example = exampleOf(schema);
  if (example !== undefined && JSON.stringify(example).length <= MAX_EXAMPLE_JSON / 10) return structuredClone(example);
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (schema.const !== undefined) return schema.const;
  const options = arr(schema.enum).filter((v) => v !== null);
  if (options.length) return options[0];
  const type = typeOf(schema);
  switch (type) {
    case 'object': {
      const result: Obj = {};
      for (const [name, property] of objectShape(schema).properties) {
        if ((purpose === 'request' && property.readOnly === true) || (purpose === 'response' && property.writeOnly === true)) continue;
        const value = sample(property, purpose, depth + 1, budget);
        if (value !== undefined) result[name] = value;
        if (budget.left <= 0) break;
      }
      return result;
    }
    case 'array': {
      const item = sample(itemsOf(schema), purpose, depth + 1, budget);
      return item === undefined ? [] : [item];
    }
    case 'integer':
    case 'number':
      return numberIn(num(schema.minimum), num(schema.maximum), type === 'integer');
    case 'boolean':
      return true;
    case 'string':
      return stringOf(schema, 'sample');
    default: {
      const first = variants(schema)[0];
      return first ? sample(first, purpose, depth + 1, budget) : null;
    }
  }
}

function numberIn(minimum: number | undefined, maximum: number | undefined, integer: boolean): number {
  let value = minimum ?? (maximum !== undefined && maximum < 1 ? maximum : 1);
  if (integer) value = Math.ceil(value);
  return maximum !== undefined && value > maximum ? maximum : value;
}

const BY_FORMAT: Record<string, string> = {
  'date-time': '2024-05-01T12:00:00Z',
  date: '2024-05-01',
  time: '12:00:00',
  email: 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

function stringOf(schema: Obj, name: string): string {
  const format = str(schema.format);
  if (format && BY_FORMAT[format]) return BY_FORMAT[format]!;
  const rules = { minLength: num(schema.minLength), maxLength: num(schema.maxLength), pattern: str(schema.pattern) };
  return fittingString(name, rules) ?? name;
}

/** A string for `name` that keeps `rules` (its length, its pattern), or undefined when none is found. */
function fittingString(name: string, rules: { minLength?: number | undefined; maxLength?: number | undefined; pattern?: string | undefined }): string | undefined {
  const candidates: string[] = [];
  if (rules.pattern) candidates.push(...fromPattern(rules.pattern, rules.maxLength));
  candidates.push(name);
  for (const candidate of candidates) {
    let value = candidate;
    if (rules.minLength !== undefined && [...value].length < rules.minLength) value = value + 'x'.repeat(rules.minLength - [...value].length);
    if (rules.maxLength !== undefined && [...value].length > rules.maxLength) value = [...value].slice(0, rules.maxLength).join('');
    if (!rules.pattern || safeMatch(rules.pattern, value)) return value;
  }
  return undefined;
}

/** Strings a pattern matches, the shortest first (randexp with every choice its first). */
function fromPattern(pattern: string, maxLength: number | undefined): string[] {
  try {
    const generator = new RandExp(pattern);
    generator.max = 3;
    generator.randInt = (from: number) => from;
    const value = generator.gen();
    return value.length <= (maxLength ?? 1000) ? [value] : [];
  } catch {
    return [];
  }
}

function safeMatch(pattern: string, value: string): boolean {
  try {
    return matchesPattern(pattern, value);
  } catch {
    return false;
  }
}

/**
 * A value the caller could send for `arg` that the engine accepts: the
 * description's example when it keeps the argument's rules, else its
 * default, first option, or one made from its type and rules. Undefined when
 * none is found (a pattern no generated string matches).
 */
export function argumentValue(arg: Argument, example: unknown): unknown {
  const one = (value: unknown) => (arg.multipleValues ? [value] : value);
  const candidates: unknown[] = [];
  if (example !== undefined) candidates.push(arg.multipleValues && Array.isArray(example) ? example[0] : example);
  if (arg.default !== undefined) candidates.push(arg.multipleValues && Array.isArray(arg.default) ? arg.default[0] : arg.default);
  for (const candidate of candidates) if (fits(arg, candidate)) return one(candidate);
  const made = madeValue(arg);
  return made === undefined ? undefined : one(made);
}

function madeValue(arg: Argument): unknown {
  const type = arg.dataType === 'List' ? 'List' : (arg.multipleValues?.dataType ?? arg.dataType);
  switch (type) {
    case 'List':
      return arg.list?.type === 'Fixed' ? arg.list.options[0]?.value : undefined;
    case 'Number':
      return numberIn(arg.minimum, arg.maximum, arg.integer === true);
    case 'Boolean':
      return true;
    case 'Date':
      return arg.format === 'Date' ? '2024-05-01' : '2024-05-01T12:00:00Z';
    case 'Object':
      return {};
    case 'Array':
      return [];
    default: {
      if (arg.format && BY_FORMAT[arg.format]) return BY_FORMAT[arg.format];
      const value = fittingString(kebabId(arg.key) || 'value', arg);
      return value !== undefined && fits(arg, value) ? value : undefined;
    }
  }
}

/** Whether the engine takes `value` for `arg` as it is: of its type, one of its options, within its rules. */
function fits(arg: Argument, value: unknown): boolean {
  const type = arg.dataType === 'List' ? 'List' : (arg.multipleValues?.dataType ?? arg.dataType);
  switch (type) {
    case 'List':
      return arg.list?.type === 'Fixed' && arg.list.options.some((o) => o.value === value);
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value) && checkValueRules(arg, value).ok;
    case 'Boolean':
      return typeof value === 'boolean';
    case 'Date':
      return typeof value === 'string' && (arg.format === 'Date' ? /^\d{4}-\d{2}-\d{2}$/.test(value) : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value)) && !Number.isNaN(Date.parse(value));
    case 'Object':
      return isObj(value);
    case 'Array':
      return Array.isArray(value);
    default:
      return typeof value === 'string' && value !== '' && !/[\u0000-\u001f]/.test(value) && checkValueRules(arg, value).ok;
  }
}

