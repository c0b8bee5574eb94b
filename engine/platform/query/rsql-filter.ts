import { parse } from '@rsql/parser';
import type { ComparisonNode, ExpressionNode } from '@rsql/ast';
import { validationError } from '../errors/index.ts';
import type { Filter } from '../store/index.ts';
import { likeSegments } from '../store/like/like-pattern.ts';
import { OPERATORS_BY_TYPE, SUPPORTED_OPERATORS, type FieldTable, type ListField } from './field-table.ts';
import { locateComparisons, type ComparisonLocation } from './rsql-positions.ts';
import { clip, looseCandidates, typedValue } from './typed-values.ts';

/** Guards that keep one request's filter cheap for the store. */
export const WHERE_LIMITS = { maxLength: 2000, maxComparisons: 50, maxListValues: 100, maxLikeLength: 100, maxLikeWildcards: 10, maxLikeWildcardsInAll: 20 } as const;

const VERBOSE: Record<string, string> = { '=lt=': '<', '=le=': '<=', '=gt=': '>', '=ge=': '>=' };
const MONGO_OPERATOR: Record<string, string> = { '!=': '$ne', '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte', '=in=': '$in', '=out=': '$nin' };
// A key of an object field: plain names only, so nothing a client writes can become a `$` operator or reach another field.
const OBJECT_KEY = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,3}$/;

/**
 * RSQL (`where`) to a MongoDB filter document, the store's one query
 * language, so the same filter runs on the embedded store and on MongoDB.
 *
 *   name=like=acme*;(plan==pro,memberCount>=10)
 *   -> { $and: [ { name: { $like: 'acme*' } }, { $or: [ { plan: 'pro' }, { memberCount: { $gte: 10 } } ] } ] }
 *
 * `=like=` becomes the store's own `$like` operator, which each adapter
 * runs in a form that cannot backtrack (engine/platform/store/like/), never a
 * regular expression built here.
 *
 * `;` (AND) binds tighter than `,` (OR); parentheses group. Only fields of
 * the table and the operators their type allows get through. Every problem
 * is a 400 VALIDATION_ERROR on `where` naming the 1-based character position
 * and the reason.
 */
export function rsqlToFilter(where: string, fields: FieldTable): Filter {
  if (where.trim() === '') throw whereError('must not be empty; leave `where` out to match everything');
  if (where.length > WHERE_LIMITS.maxLength) throw whereError(`must be at most ${WHERE_LIMITS.maxLength} characters`);
  let tree: ExpressionNode;
  try {
    tree = parse(where);
  } catch (error) {
    throw whereError(describeSyntaxError(error));
  }
  const locations = locateComparisons(where);
  if (locations.length > WHERE_LIMITS.maxComparisons) throw whereError(`must have at most ${WHERE_LIMITS.maxComparisons} comparisons`);
  let next = 0;
  const like = { wildcards: 0 };
  const translate = (node: ExpressionNode): Filter => {
    if (node.type === 'LOGIC') {
      // In source order, so each comparison meets its own location.
      const left = translate(node.left);
      const right = translate(node.right);
      const op = node.operator === ';' || node.operator === 'and' ? '$and' : '$or';
      return { [op]: [...flatten(left, op), ...flatten(right, op)] };
    }
    return comparison(node, locations[next++]!, fields, like);
  };
  return translate(tree);
}

/** `a;b;c` parses as ((a;b);c): one $and of three reads better and queries the same. */
function flatten(filter: Filter, op: string): Filter[] {
  const keys = Object.keys(filter);
  return keys.length === 1 && keys[0] === op ? (filter[op] as Filter[]) : [filter];
}

function comparison(node: ComparisonNode, where: ComparisonLocation, fields: FieldTable, like: { wildcards: number }): Filter {
  const selector = node.left.selector;
  const operator = VERBOSE[node.operator] ?? node.operator;
  const at = (offset: number) => `at position ${offset + 1}`;
  const [name, ...rest] = selector.split('.');
  const field: ListField | undefined = Object.hasOwn(fields, name!) ? fields[name!] : undefined;
  if (!field) {
    throw whereError(`unknown field "${clip(selector)}" ${at(where.selector)}; filterable fields: ${Object.keys(fields).join(', ')}`);
  }
  const key = rest.join('.');
  if (field.type === 'object' && rest.length === 0) {
    throw whereError(`${name} is an object: compare one of its keys, e.g. ${name}.someKey==value ${at(where.selector)}`);
  }
  if (field.type === 'object' && !OBJECT_KEY.test(key)) {
    throw whereError(`${clip(selector)}: a key of ${name} is letters, digits, _ and - (at most 64), and at most 4 keys deep, e.g. ${name}.someKey==value ${at(where.selector)}`);
  }
  if (field.type !== 'object' && rest.length > 0) {
    throw whereError(`unknown field "${clip(selector)}" ${at(where.selector)}; ${name} has no keys`);
  }
  if (!(SUPPORTED_OPERATORS as readonly string[]).includes(operator)) {
    throw whereError(`unknown operator "${clip(node.operator)}" ${at(where.selector + selector.length)}; operators: ${SUPPORTED_OPERATORS.join(' ')}`);
  }
  if (!OPERATORS_BY_TYPE[field.type].includes(operator)) {
    throw whereError(
      `operator ${operator} does not apply to ${name} (${field.type}) ${at(where.selector + selector.length)}; it takes ${OPERATORS_BY_TYPE[field.type].join(' ')}`,
    );
  }
  const path = (field.path ?? name!) + (key ? `.${key}` : '');
  const raw = Array.isArray(node.right.value) ? node.right.value : [node.right.value];
  const isList = operator === '=in=' || operator === '=out=';
  if (isList && raw.length > WHERE_LIMITS.maxListValues) {
    throw whereError(`${operator} takes at most ${WHERE_LIMITS.maxListValues} values ${at(where.values[0]!.at)}`);
  }
  if (!isList && raw.length > 1) {
    throw whereError(`${operator} takes one value, not a list ${at(where.values[0]!.at)}`);
  }

  if (operator === '=like=') return { [path]: { $like: likePattern(raw[0]!, where.values[0]!.at, like) } };

  const values = raw.flatMap((text, i) => {
    const { at: offset, quoted } = where.values[i]!;
    if (field.type === 'object') return looseCandidates(text, quoted);
    const typed = typedValue(text, quoted, field.type, field.nullable ?? false);
    if (!typed.ok) throw whereError(`${name} ${typed.reason} ${at(offset)}`);
    // A value the field never holds matches nothing: most likely a typo, said as one.
    if (field.values && typeof typed.value === 'string' && !field.values.includes(typed.value)) {
      throw whereError(`${name} is one of ${field.values.join(', ')} (got "${clip(typed.value)}") ${at(offset)}`);
    }
    if (typed.value === null && !['==', '!=', '=in=', '=out='].includes(operator)) {
      throw whereError(`${name}: null can only be compared with == != =in= =out= ${at(offset)}`);
    }
    return [typed.value];
  });
  if (field.type === 'object' && values.includes(null)) return objectKeyNull(path, operator, values);
  if (operator === '==') return { [path]: values.length === 1 ? values[0] : { $in: values } };
  if (operator === '!=' && values.length > 1) return { [path]: { $nin: values } };
  return { [path]: { [MONGO_OPERATOR[operator]!]: isList ? values : values[0] } };
}

/**
 * A key of an object may be missing, and MongoDB treats a missing key as
 * null while the embedded store does not: spelling out "missing" keeps both
 * stores answering `settings.locale==null` (or `!=null`) the same way.
 */
function objectKeyNull(path: string, operator: string, values: unknown[]): Filter {
  if (operator === '==' || operator === '=in=') return { $or: [{ [path]: { $in: values } }, { [path]: { $exists: false } }] };
  return { $and: [{ [path]: { $nin: values } }, { [path]: { $exists: true } }] };
}

/**
 * `=like=` takes `*` as "any characters" and everything else literally,
 * anchored at both ends, case-insensitive (the store's `$like`). The limits
 * on length and wildcards keep the cost per value (value length x pattern
 * length) small, and the wildcards of all of a filter's patterns together
 * (`like`, counted across its comparisons) keep a filter's cost per record
 * small: 50 patterns of 10 wildcards each held the embedded store (one
 * connection, every company's queries behind it) a second per request.
 */
function likePattern(text: string, offset: number, like: { wildcards: number }): string {
  const where = `at position ${offset + 1}`;
  if (text.length === 0) throw whereError(`=like= needs a pattern ${where}`);
  if (text.length > WHERE_LIMITS.maxLikeLength) throw whereError(`=like= patterns are at most ${WHERE_LIMITS.maxLikeLength} characters ${where}`);
  const wildcards = likeSegments(text).length - 1;
  if (wildcards > WHERE_LIMITS.maxLikeWildcards) throw whereError(`=like= patterns have at most ${WHERE_LIMITS.maxLikeWildcards} wildcards ${where}`);
  like.wildcards += wildcards;
  if (like.wildcards > WHERE_LIMITS.maxLikeWildcardsInAll) throw whereError(`the =like= patterns of one filter have at most ${WHERE_LIMITS.maxLikeWildcardsInAll} wildcards in all ${where}`);
  return text;
}

/** The parser's message without the echo of the whole input: "Unexpected character ';' at position 6". */
function describeSyntaxError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unclosed = /Did you forget to close parenthesis at position (\d+)\?/.exec(message);
  if (unclosed) return `is not valid RSQL: the parenthesis at position ${unclosed[1]} is never closed`;
  if (/Cannot parse empty string/.test(message)) return 'must not be empty';
  if (/^Unexpected end/.test(message)) return 'is not valid RSQL: it ends too early (a comparison needs a field, an operator and a value)';
  const located = /^(Unexpected (?:character|string) '.*'|Unclosed quote '.') at position (\d+)/s.exec(message);
  if (located) return `is not valid RSQL: ${located[1]!.replace(/^U/, 'u')} at position ${located[2]}`;
  return 'is not valid RSQL';
}

function whereError(message: string) {
  return validationError([{ field: 'where', rule: 'rsql', message }]);
}
