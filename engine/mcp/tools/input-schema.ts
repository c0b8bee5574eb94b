import { argumentTree, type ArgumentNode } from '../../core/arguments/argument-tree.ts';
import { CURSOR_ARGUMENT, takesCursorArgument } from '../../core/arguments/index.ts';
import { isStringFormat } from '../../core/arguments/string-formats.ts';
import type { ActionEntry, AppVersion, ArgumentEntry } from '../../core/definitions/index.ts';
import type { FixedList, LookupList } from '../../core/definitions/generated/definition-types.ts';
import { toolName } from './tool-name.ts';

/** A JSON Schema (2020-12) object, as a tool's inputSchema holds it. */
export type JsonSchema = { [keyword: string]: unknown };
/** A tool's inputSchema: an object schema. */
export type ObjectSchema = JsonSchema & { type: 'object' };

const DATE_DESCRIPTION = 'An ISO 8601 date (2024-05-01) or date-time with a time zone (2024-05-01T12:00:00Z).';
// What parseIsoDate (core/arguments/dates.ts) takes, as patterns: a real calendar date (month lengths, 29 February
// of leap years only), years from 0100 (Date.UTC reads 0-99 as 1900-1999, which the engine refuses), hours to 23,
// minutes and seconds to 59, a fraction of at most 9 digits, and a zone (Z or +hh:mm, +hhmm) on a date-time.
const YEAR = '(?:0[1-9]\\d{2}|[1-9]\\d{3})';
const LEAP_YEAR = '(?:(?:0[1-9]|[1-9]\\d)(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const CALENDAR_DATE = `(?:${YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))|${LEAP_YEAR}-02-29)`;
const HOUR = '(?:[01]\\d|2[0-3])';
const MINUTE = '[0-5]\\d';
/** A Date argument: a calendar date, or a date-time with the seconds optional and a zone required. */
export const ISO_8601_PATTERN = `^${CALENDAR_DATE}(?:[Tt]${HOUR}:${MINUTE}(?::${MINUTE}(?:\\.\\d{1,9})?)?(?:[Zz]|[+-]${HOUR}:?${MINUTE}))?$`;
/** A String of format date-time (string-formats.ts): RFC 3339, seconds and a zone required. */
export const RFC_3339_PATTERN = `^${CALENDAR_DATE}[Tt]${HOUR}:${MINUTE}:${MINUTE}(?:\\.\\d{1,9})?(?:[Zz]|[+-]${HOUR}:${MINUTE})$`;
/** What a path parameter with allowSlashes may not hold: a `.` or `..` segment, or an empty one. */
const SLASHED_SEGMENT_REFUSED = '(?:^|/)\\.{1,2}(?:/|$)|^/|//|/$';

/** A Lookup's value: an id as text or as a number (anyOf of single types: a one-`type` dialect, Gemini's, takes it). */
const ANY_ID: JsonSchema = { anyOf: [{ type: 'string' }, { type: 'number' }] };
const CURSOR_SCHEMA: JsonSchema = {
  type: 'string',
  description: "For the next page: the meta.cursor of the previous result, unchanged. Leave it out for the first page.",
};

/**
 * A tool's inputSchema, from the action's arguments as the engine checks
 * them (core/arguments/check-arguments.ts), so what the schema admits the run
 * accepts:
 *
 *   String/Number/Boolean   type; integer, minimum, maximum, minLength, maxLength, pattern, format as the keywords of the same name
 *   Date                    a string, ISO 8601 (the engine sends it in the argument's format)
 *   Object/Array            their children as properties (of the items), no other keys
 *   List Fixed              enum of the values, the labels in the description
 *   List Lookup             described with the tool that lists the options (<app>_<lookup action>)
 *   List Country/Currency   an ISO code
 *   multipleValues          an array of such values
 *   hidden                  left out (the engine refuses a value and sends the default)
 *   default                 `default`; an argument with one is not required
 *
 * The top level admits no other key (the engine refuses unknown ones), and
 * a paging action takes `cursor`.
 */
export function inputSchemaOf(action: ActionEntry, version: AppVersion): ObjectSchema {
  const { properties, required } = fieldsOf(argumentTree(action.arguments), version, true);
  if (takesCursorArgument(action)) properties[CURSOR_ARGUMENT] = CURSOR_SCHEMA;
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function fieldsOf(nodes: readonly ArgumentNode[], version: AppVersion, topLevel: boolean): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const node of nodes) {
    const { arg } = node;
    if (arg.hidden) continue;
    // A path parameter needs a value whatever `required` says (unless it may be left out: allowSlashes and optional).
    const inPath = topLevel && arg.location === 'Param' && !(arg.allowSlashes && !arg.required);
    let schema = propertyOf(node, version);
    // The engine refuses a blank value ('' or []) for a required argument or a path parameter, default or not (check-arguments.ts).
    if (arg.required || inPath) schema = nonBlank(schema);
    if (topLevel && arg.location === 'Param') schema = withPathSegmentRule(schema, arg.allowSlashes === true);
    properties[arg.key] = schema;
    if ((arg.required || inPath) && arg.default === undefined) required.push(arg.key);
  }
  return { properties, required };
}

/** A required value is not blank: a string has a character, an array an element (the string branches of an anyOf too). */
function nonBlank(schema: JsonSchema): JsonSchema {
  if (schema.type === 'array') return { ...schema, minItems: Math.max(1, (schema.minItems as number | undefined) ?? 0) };
  if (schema.type === 'string') return { ...schema, minLength: Math.max(1, (schema.minLength as number | undefined) ?? 0) };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map((branch) => (branch.type === 'string' ? nonBlank(branch) : branch)) };
  return schema;
}

/**
 * A path parameter's value may not be a `.` or `..` segment (fillPath: URL parsing would climb the path);
 * with allowSlashes, none of its segments may be, nor empty (a leading, trailing or doubled /).
 */
function withPathSegmentRule(schema: JsonSchema, allowSlashes: boolean): JsonSchema {
  return { ...schema, not: allowSlashes ? { type: 'string', pattern: SLASHED_SEGMENT_REFUSED } : { enum: ['.', '..'] } };
}

function propertyOf(node: ArgumentNode, version: AppVersion): JsonSchema {
  const { arg } = node;
  const notes: string[] = [];
  // A label that only spells the key out (titleContains: "Title contains") tells a model nothing more.
  if (arg.label && arg.label.replace(/\s+/g, '').toLowerCase() !== arg.key.toLowerCase()) notes.push(arg.label.endsWith('.') ? arg.label : `${arg.label}.`);
  if (arg.description) notes.push(arg.description);
  let schema: JsonSchema;
  if (arg.multipleValues) {
    const elementType = arg.dataType === 'List' ? 'List' : arg.multipleValues.dataType;
    schema = { type: 'array', items: elementOf(arg, elementType, version, notes) };
  } else if (arg.dataType === 'Object' || arg.dataType === 'Array') {
    schema = structureOf(node, version);
  } else {
    schema = elementOf(arg, arg.dataType, version, notes);
  }
  if (notes.length) schema = { ...schema, description: notes.join(' ') };
  if (arg.default !== undefined) schema = { ...schema, default: arg.default };
  return schema;
}

function structureOf(node: ArgumentNode, version: AppVersion): JsonSchema {
  const type = node.arg.dataType === 'Object' ? 'object' : 'array';
  if (node.children.length === 0) return { type };
  const { properties, required } = fieldsOf(node.children, version, false);
  const shape: JsonSchema = { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
  return type === 'object' ? shape : { type: 'array', items: shape };
}

/** One value: the argument's own, or each of its multipleValues. Notes about the value go to the property's description. */
function elementOf(arg: ArgumentEntry, dataType: ArgumentEntry['dataType'], version: AppVersion, notes: string[]): JsonSchema {
  switch (dataType) {
    case 'String': {
      const format = isStringFormat(arg.format) ? arg.format : undefined;
      const schema = withRules({ type: 'string' }, arg, ['minLength', 'maxLength', 'pattern'], format);
      // JSON Schema's date-time admits what the engine refuses (a space for the T, second 60, many fraction digits), and a client may not assert formats.
      if (format === 'date-time') return schema.pattern === undefined ? { ...schema, pattern: RFC_3339_PATTERN } : { ...schema, allOf: [{ pattern: RFC_3339_PATTERN }] };
      return schema;
    }
    case 'Number':
      return withRules({ type: arg.integer ? 'integer' : 'number' }, arg, ['minimum', 'maximum']);
    case 'Boolean':
      return { type: 'boolean' };
    case 'Date':
      notes.push(DATE_DESCRIPTION);
      return { type: 'string', pattern: ISO_8601_PATTERN };
    case 'List':
      return listOf(arg, version, notes);
    default:
      return { type: dataType === 'Object' ? 'object' : 'array' };
  }
}

function withRules(schema: JsonSchema, arg: ArgumentEntry, keywords: ('minLength' | 'maxLength' | 'pattern' | 'minimum' | 'maximum')[], format?: string): JsonSchema {
  const out = { ...schema };
  for (const keyword of keywords) if (arg[keyword] !== undefined) out[keyword] = arg[keyword];
  if (format) out.format = format;
  return out;
}

function listOf(arg: ArgumentEntry, version: AppVersion, notes: string[]): JsonSchema {
  const list = arg.list;
  switch (list?.type) {
    case 'Fixed':
      return fixedOf(list, notes);
    case 'Lookup':
      return lookupOf(list, version, notes);
    case 'Country':
      notes.push('An ISO 3166-1 alpha-2 country code, such as US or DE.');
      return { type: 'string', pattern: '^[A-Za-z]{2}$' };
    case 'Currency':
      notes.push('An ISO 4217 currency code, such as USD or EUR.');
      return { type: 'string', pattern: '^[A-Za-z]{3}$' };
    default:
      return { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };
  }
}

function fixedOf(list: FixedList, notes: string[]): JsonSchema {
  const values = list.options.map((o) => o.value);
  const types = [...new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)))];
  const labelled = list.options.filter((o) => o.label !== undefined && o.label !== String(o.value));
  if (labelled.length) notes.push(`One of: ${list.options.map((o) => (o.label !== undefined && o.label !== String(o.value) ? `${JSON.stringify(o.value)} (${o.label})` : JSON.stringify(o.value))).join(', ')}.`);
  return { ...(types.length === 1 ? { type: types[0] } : {}), enum: values };
}

function lookupOf(list: LookupList, version: AppVersion, notes: string[]): JsonSchema {
  const action = version.actions.get(list.action);
  const lister = action ? `the tool ${toolName(version.app.slug, action.slug)}` : `the action ${list.action}`;
  notes.push(
    `The ${list.valueKey} of one of the rows ${lister} returns (its ${list.labelKey} names it)${list.strict ? '; it must be among the rows of its first page' : ''}.`,
  );
  return ANY_ID;
}
