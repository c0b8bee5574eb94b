import { defaultMismatch } from '../../core/definitions/checks/argument-checks.ts';
import { checkRules, defaultBreaksRules } from '../../core/definitions/checks/argument-rule-checks.ts';
import type { ListOption } from '../../core/definitions/generated/definition-types.ts';
import type { Argument } from './imported-app.ts';
import { isObj, num, str, type Obj } from './json-access.ts';
import { camelKey, documentation, unique } from './naming.ts';
import { description, enumValues, itemsOf, merged, objectShape, typeOf, type SchemaType } from './schema-shape.ts';

/** How deep Object and Array arguments get children: deeper values are sent as given (an Object without children). */
export const MAX_CHILD_DEPTH = 3;
/** The most arguments one action gets; properties past it are left to their parent (an Object without children). */
export const MAX_ARGUMENTS = 150;
/** The most options a Fixed list gets from an enum. */
const MAX_OPTIONS = 500;

/** What one action's arguments share while they are made. */
export interface ArgumentScope {
  /** Keys in use in the action (top-level and children: keys are unique in the whole list). */
  taken: Set<string>;
  /** Notes for the author, prefixed with where they come from. */
  note: (message: string) => void;
  /** Arguments still allowed for the action. */
  left: number;
}

export interface ArgumentSource {
  /** The name the API uses (a parameter's or property's name). */
  name: string;
  schema: unknown;
  required: boolean;
  /** The parameter's own description, which wins over the schema's. */
  description?: string | undefined;
  location?: Argument['location'];
  /** The external key when it is not `name` (a child's `parent.name`, a renamed path parameter's none). */
  externalKey?: string | undefined;
  /** The key to use instead of one made from `name`. */
  key?: string | undefined;
  parent?: Argument;
  /** How a multiple-values Query, Header or Param joins its values (style/explode): a delimiter, or none to repeat the parameter. */
  delimiter?: string | undefined;
  depth?: number;
}

/**
 * The argument for one parameter or body property, with its children for an
 * object (or array of objects) in the Body: data type from the schema's type
 * and format, an enum as a Fixed list, the schema's limits as value rules,
 * the default when it fits. What the model cannot hold (a pattern RE2 cannot
 * run, a default that breaks the rules) is left out and noted.
 */
export function argumentsFrom(source: ArgumentSource, scope: ArgumentScope): Argument[] {
  if (scope.left <= 0) return [];
  scope.left--;
  const schema = merged(source.schema);
  const key = source.key ?? childKey(source, scope.taken);
  const arg: Argument = { key, dataType: 'String' };
  const externalKey = source.externalKey ?? source.name;
  if (externalKey !== key) arg.externalKey = externalKey;
  const text = documentation(source.description ?? description(schema) ?? '');
  if (text) arg.description = text;
  if (source.location && !source.parent) arg.location = source.location;
  if (source.required) arg.required = true;
  if (source.parent) arg.parent = source.parent.key;

  const type = typeOf(schema);
  const children: Argument[] = [];
  if (type === 'array') {
    const items = itemsOf(schema);
    const itemType = typeOf(items);
    if (itemType === 'object' || itemType === 'array' || (itemType === undefined && source.location === 'Body')) {
      arg.dataType = 'Array';
      if (itemType === 'object' && source.location === 'Body' && (source.depth ?? 0) < MAX_CHILD_DEPTH) children.push(...childrenOf(arg, items, source, scope));
    } else {
      scalar(arg, items, itemType);
      const first = arg.list?.type === 'Fixed' ? arg.list.options[0]?.value : undefined;
      arg.multipleValues = { dataType: arg.dataType === 'List' ? (typeof first === 'number' ? 'Number' : 'String') : (arg.dataType as 'String') };
      if (source.delimiter !== undefined) arg.multipleValues.delimiter = source.delimiter;
    }
  } else if (type === 'object' || (type === undefined && source.location === 'Body')) {
    arg.dataType = 'Object';
    if (source.location === 'Body' && (source.depth ?? 0) < MAX_CHILD_DEPTH) children.push(...childrenOf(arg, schema, source, scope));
  } else {
    scalar(arg, schema, type);
  }
  const value = schema.default;
  if (value !== undefined && value !== null) arg.default = arg.multipleValues && !Array.isArray(value) ? [value] : value;
  keepWhatFits(arg, scope);
  return [arg, ...children];
}

/** A scalar argument's type, list and rules from its schema. */
function scalar(arg: Argument, schema: Obj, type: SchemaType | undefined): void {
  const options = enumValues(schema);
  if (options && options.length <= MAX_OPTIONS) {
    arg.dataType = 'List';
    arg.list = { type: 'Fixed', options: options.map((value) => ({ value })) as [ListOption, ...ListOption[]] };
    return;
  }
  if (schema.const !== undefined && (typeof schema.const === 'string' || typeof schema.const === 'number' || typeof schema.const === 'boolean')) {
    arg.dataType = 'List';
    arg.list = { type: 'Fixed', options: [{ value: schema.const }] };
    arg.default = schema.const;
    return;
  }
  const format = str(schema.format);
  if (type === 'integer' || type === 'number') {
    arg.dataType = 'Number';
    if (type === 'integer' || format === 'int32' || format === 'int64') arg.integer = true;
    const exclusiveMinimum = num(schema.exclusiveMinimum);
    const exclusiveMaximum = num(schema.exclusiveMaximum);
    const minimum = num(schema.minimum) ?? (exclusiveMinimum !== undefined && arg.integer ? Math.floor(exclusiveMinimum) + 1 : undefined);
    const maximum = num(schema.maximum) ?? (exclusiveMaximum !== undefined && arg.integer ? Math.ceil(exclusiveMaximum) - 1 : undefined);
    if (minimum !== undefined) arg.minimum = minimum;
    if (maximum !== undefined) arg.maximum = maximum;
    return;
  }
  if (type === 'boolean') {
    arg.dataType = 'Boolean';
    return;
  }
  if (format === 'date') {
    arg.dataType = 'Date';
    arg.format = 'Date';
    return;
  }
  arg.dataType = 'String';
  if (format === 'date-time' || format === 'email' || format === 'uri') arg.format = format;
  else if (format === 'url') arg.format = 'uri';
  const minLength = num(schema.minLength);
  const maxLength = num(schema.maxLength);
  if (minLength !== undefined && Number.isInteger(minLength) && minLength >= 1) arg.minLength = minLength;
  if (maxLength !== undefined && Number.isInteger(maxLength) && maxLength >= 1) arg.maxLength = maxLength;
  const pattern = str(schema.pattern);
  if (pattern) arg.pattern = pattern;
}

/** The children of an Object (its properties) or of an Array of objects (its items' properties), read-only ones left out. */
function childrenOf(parent: Argument, schema: Obj, source: ArgumentSource, scope: ArgumentScope): Argument[] {
  const { properties, required } = objectShape(schema);
  const prefix = `${parent.externalKey ?? parent.key}.`;
  const children: Argument[] = [];
  for (const [name, property] of properties) {
    if (property.readOnly === true) continue;
    // A dot in a property's name would read as nesting: such a field is left to the parent's value.
    if (name.includes('.') || name === '') continue;
    children.push(...argumentsFrom({ name, schema: property, required: required.has(name), externalKey: prefix + name, parent, location: 'Body', depth: (source.depth ?? 0) + 1 }, scope));
  }
  return children;
}

/** A child's key from its name, prefixed with its parent's when another argument of the action has it. */
function childKey(source: ArgumentSource, taken: Set<string>): string {
  const own = camelKey(source.name);
  if (!taken.has(own)) {
    taken.add(own);
    return own;
  }
  const prefixed = source.parent ? camelKey(`${source.parent.key}_${source.name}`) : own;
  return unique(prefixed, taken);
}

/**
 * Drops what the definitions loader would refuse, each with a note: a rule
 * on the wrong type or that no value meets, a pattern RE2 cannot run, a
 * default that is not of the type or breaks the rules.
 */
function keepWhatFits(arg: Argument, scope: ArgumentScope): void {
  for (const problem of checkRules(arg)) {
    const field = problem.field as keyof Argument;
    if (arg[field] === undefined) continue;
    scope.note(`argument ${arg.key}: ${field} ${JSON.stringify(arg[field])} left out (${problem.message.replace(/^:\s*/, '')})`);
    delete arg[field];
  }
  if (arg.default === undefined) return;
  const broken = defaultMismatch(arg) ?? defaultBreaksRules(arg);
  if (broken) {
    scope.note(`argument ${arg.key}: default ${JSON.stringify(arg.default)} left out (${broken})`);
    delete arg.default;
  } else if (isObj(arg.default) && arg.dataType !== 'Object') delete arg.default;
}
