import type { FieldProblem } from '../../platform/errors/index.ts';
import type { ArgumentEntry } from '../definitions/snapshot.ts';
import { pathInParent, sentName, type ArgumentNode } from '../arguments/argument-tree.ts';
import { ABSENT, checkNode, type CheckContext, type MaybeValue } from '../arguments/check-arguments.ts';
import { coerceScalar, type Checked } from '../arguments/coerce.ts';
import { isDateFormat } from '../arguments/dates.ts';
import { headerText } from '../arguments/host-variables.ts';
import { define, setPath } from '../arguments/json-path.ts';
import { checkListValueNow } from '../arguments/lists/list-check.ts';
import type { RequestParts } from '../arguments/placement.ts';
import { problem, shown } from '../arguments/rules.ts';
import { asText, sendValue, type SendContext } from '../arguments/send-values.ts';
import { escapeText } from '../arguments/escape.ts';
import { checkValueRules, delimiterProblem } from '../arguments/value-rules.ts';
import { isJsonObject } from '../../platform/json-object.ts';

/**
 * One argument compiled, when its plan is made, into three closures that do
 * what the reference interpretation (checkArguments, sendValue and place in
 * engine/core/arguments/) does to its value, with everything that depends only on
 * the definition decided once: the default and how it is copied, the data
 * type's coercion and date format, whether any value rule applies, the list
 * check, the children's keys, fields and places in the parent, the name it is
 * sent under. Checking and sending are synchronous; the two things that are
 * not (a strict Lookup asks the app for its options, a mapper may run on
 * jsonata) are left to the reference functions for that argument alone.
 */
export interface ArgumentPlan {
  readonly node: ArgumentNode;
  readonly key: string;
  /** `${prefix}${key}`: the field a problem names. */
  readonly field: string;
  /** Whether an empty string sent for it is left out (an optional allowSlashes Param). */
  readonly dropsEmpty: boolean;
  readonly check: (raw: unknown, field: string, ctx: CheckContext) => MaybeValue | Promise<MaybeValue>;
  readonly send: (checked: unknown, field: string, ctx: SendContext) => MaybeValue | Promise<MaybeValue>;
  /** Puts the sent value in the request (nothing for an API or auth argument without a location). */
  readonly place: (sent: unknown, parts: RequestParts, problems: FieldProblem[], field: string) => void;
  readonly location: ArgumentEntry['location'];
  /** The :name of a Param argument. */
  readonly sentName: string;
}

type Check = (raw: unknown, field: string, ctx: CheckContext) => MaybeValue | Promise<MaybeValue>;
type Element = (value: unknown, fromDefault: boolean) => Checked;

export function planArgument(node: ArgumentNode, prefix: string): ArgumentPlan {
  const { arg } = node;
  // An optional allowSlashes Param may be left out (the path then ends before it, see fillPath), so it is not held to the path's rule here.
  const inPath = arg.location === 'Param' && !(arg.allowSlashes && !arg.required);
  return {
    node,
    key: arg.key,
    field: `${prefix}${arg.key}`,
    dropsEmpty: arg.location === 'Param' && !inPath,
    check: planCheck(node, inPath),
    send: planSend(node),
    place: planPlace(node),
    location: arg.location,
    sentName: sentName(node),
  };
}

function some(node: ArgumentNode, test: (arg: ArgumentEntry) => boolean): boolean {
  return test(node.arg) || node.children.some((child) => some(child, test));
}

const missing = (value: unknown): value is undefined | null => value === undefined || value === null;
const blank = (value: unknown): boolean => value === '' || (Array.isArray(value) && value.length === 0);

/** checkNode, compiled. */
function planCheck(node: ArgumentNode, inPath: boolean): Check {
  // A strict Lookup's value is checked against the options the app answers: the reference does that (asynchronously).
  if (some(node, (a) => a.list?.type === 'Lookup' && a.list.strict === true)) return (raw, field, ctx) => checkNode(node, raw, field, ctx, inPath);
  const { arg } = node;
  const hidden = Boolean(arg.hidden);
  const fallback = arg.default;
  const hasDefault = fallback !== undefined;
  const copyDefault = fallback !== null && typeof fallback === 'object';
  const required = Boolean(arg.required);
  const blankRefused = required || inPath;
  const multiple = Boolean(arg.multipleValues);
  const structured = !multiple && (arg.dataType === 'Object' || arg.dataType === 'Array');
  const element: Element | null = structured ? null : planElement(arg, multiple && arg.dataType !== 'List' ? arg.multipleValues!.dataType : arg.dataType);
  const children = structured && node.children.length > 0 ? planChildren(node) : null;
  const childKeys = node.children.map((c) => c.arg.key).join(', ');

  return (raw, field, ctx) => {
    let value = raw;
    if (hidden && !missing(raw)) {
      if (ctx.strict) ctx.problems.push(problem(field, 'hidden', 'is hidden: it cannot be set, it always sends its default'));
      value = undefined;
    }
    let fromDefault = false;
    if (missing(value) && hasDefault) {
      value = copyDefault ? structuredClone(fallback) : fallback;
      fromDefault = true;
    }
    if (missing(value) || (blankRefused && blank(value))) {
      if (required) ctx.problems.push(problem(field, 'required', 'is required'));
      else if (inPath) ctx.problems.push(problem(field, 'required', 'is a path parameter, so it needs a value'));
      return ABSENT;
    }
    if (multiple) {
      const isArray = Array.isArray(value);
      const values = isArray ? (value as unknown[]) : [value];
      const out: unknown[] = [];
      let ok = true;
      for (let i = 0; i < values.length; i++) {
        const result = element!(values[i], fromDefault);
        const split = result.ok ? delimiterProblem(arg, result.value) : null;
        if (split) {
          ok = false;
          ctx.problems.push(problem(isArray ? `${field}[${i}]` : field, split.rule, split.message));
        } else if (result.ok) out.push(result.value);
        else {
          ok = false;
          ctx.problems.push(problem(isArray ? `${field}[${i}]` : field, result.rule, result.message));
        }
      }
      return ok ? out : ABSENT;
    }
    if (structured) {
      const shape = coerceScalar(arg.dataType, value, undefined);
      if (!shape.ok) {
        ctx.problems.push(problem(field, shape.rule, shape.message));
        return ABSENT;
      }
      if (!children) return value;
      if (arg.dataType === 'Object') return children(value as Record<string, unknown>, field, ctx);
      const out: unknown[] = [];
      const elements = value as unknown[];
      for (let i = 0; i < elements.length; i++) {
        const item = elements[i];
        if (!isJsonObject(item)) {
          ctx.problems.push(problem(`${field}[${i}]`, 'type', `must be an object with ${childKeys} (got ${shown(item)})`));
          continue;
        }
        out.push(children(item, `${field}[${i}]`, ctx));
      }
      return out;
    }
    const result = element!(value, fromDefault);
    if (result.ok) return result.value;
    ctx.problems.push(problem(field, result.rule, result.message));
    return ABSENT;
  };
}

/** checkChildren, compiled (no strict Lookup below: planCheck left those to the reference). */
function planChildren(node: ArgumentNode): (value: Record<string, unknown>, field: string, ctx: CheckContext) => Record<string, unknown> {
  const known = new Set(node.children.map((c) => c.arg.key));
  const knownList = [...known].join(', ');
  const parentKey = node.arg.key;
  const children = node.children.map((child) => ({ key: child.arg.key, check: planCheck(child, false) }));
  return (value, field, ctx) => {
    for (const key of Object.keys(value)) {
      if (!known.has(key)) ctx.problems.push(problem(`${field}.${key === '' ? '""' : key}`, 'unknown', `is not a field of ${parentKey} (its fields: ${knownList})`));
    }
    const out: Record<string, unknown> = {};
    for (const child of children) {
      const checked = child.check(Object.hasOwn(value, child.key) ? value[child.key] : undefined, `${field}.${child.key}`, ctx) as MaybeValue;
      if (checked !== ABSENT) define(out, child.key, checked);
    }
    return out;
  };
}

/** checkElement, compiled: coercion, then the list or the value rules. */
function planElement(arg: ArgumentEntry, dataType: ArgumentEntry['dataType']): Element {
  const dateFormat = isDateFormat(arg.format) ? arg.format : undefined;
  const list = dataType === 'List' && arg.list ? arg.list : undefined;
  const ruled = Boolean(arg.integer) || arg.minimum !== undefined || arg.maximum !== undefined || arg.minLength !== undefined || arg.maxLength !== undefined || arg.pattern !== undefined || arg.format !== undefined;
  return (value, fromDefault) => {
    const coerced = coerceScalar(dataType, value, dateFormat);
    if (!coerced.ok) return coerced;
    if (list) return checkListValueNow(list, coerced.value as string | number | boolean, fromDefault)!;
    // A default is the author's value, held to the rules when the definitions load (ARG_DEFAULT_RULE).
    return fromDefault || !ruled ? coerced : checkValueRules(arg, coerced.value);
  };
}

type Send = (checked: unknown, field: string, ctx: SendContext) => MaybeValue | Promise<MaybeValue>;

/** sendValue, compiled; an argument with a mapper (on it or below) is sent by the reference (a mapper is awaited). */
function planSend(node: ArgumentNode): Send {
  if (some(node, (a) => a.mapper !== undefined)) return (checked, field, ctx) => sendValue(node, checked, field, ctx);
  return planSyncSend(node);
}

function planSyncSend(node: ArgumentNode): (checked: unknown) => unknown {
  const { arg } = node;
  const escape = arg.escape;
  const escaped = escape ? (value: unknown) => (typeof value === 'string' ? escapeText(value, escape) : value) : (value: unknown) => value;
  if (arg.multipleValues) {
    const delimiter = arg.multipleValues.delimiter;
    return (checked) => {
      const out: unknown[] = [];
      for (const element of checked as unknown[]) {
        const sent = escaped(element);
        if (sent !== undefined) out.push(sent);
      }
      return delimiter === undefined ? out : out.map(asText).join(delimiter);
    };
  }
  if (node.children.length > 0 && (arg.dataType === 'Object' || arg.dataType === 'Array')) {
    const children = node.children.map((child) => ({ key: child.arg.key, path: pathInParent(child), send: planSyncSend(child) }));
    const sendChildren = (checked: Record<string, unknown>) => {
      const out: Record<string, unknown> = {};
      for (const child of children) {
        if (!Object.hasOwn(checked, child.key)) continue;
        const sent = child.send(checked[child.key]);
        if (sent !== undefined) setPath(out, child.path, sent);
      }
      return out;
    };
    if (arg.dataType === 'Object') return (checked) => escaped(sendChildren(checked as Record<string, unknown>));
    return (checked) => escaped((checked as Record<string, unknown>[]).map(sendChildren));
  }
  return escaped;
}

/** place, compiled for the argument's location. */
function planPlace(node: ArgumentNode): ArgumentPlan['place'] {
  const { arg } = node;
  const name = sentName(node);
  const multiple = Boolean(arg.multipleValues);
  switch (arg.location) {
    case 'Query':
      return (sent, parts) => define(parts.query, name, multiple && Array.isArray(sent) ? sent.map(asText) : asText(sent));
    case 'Param':
      return (sent, parts) => {
        parts.params.set(name, Array.isArray(sent) && multiple ? sent.map(asText).join(',') : asText(sent));
      };
    case 'Body': {
      if (arg.asBody === true) {
        return (sent, parts) => {
          if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) return;
          for (const [field, value] of Object.entries(sent)) if (!Object.hasOwn(parts.body, field)) define(parts.body, field, value);
        };
      }
      const path = name.split('.');
      return (sent, parts) => setPath(parts.body, path, sent);
    }
    case 'Header': {
      const lower = name.toLowerCase();
      return (sent, parts, problems, field) => {
        const values = multiple && Array.isArray(sent) ? sent : [sent];
        if (values.some((v) => v !== null && typeof v === 'object')) {
          problems.push(problem(field, 'header', `is sent in header ${name}, so it must be text, a number or a boolean (got an object or array)`));
          return;
        }
        const text = values.length === 1 ? asText(values[0]) : values.map(asText).join(', ');
        const checked = headerText(text);
        if (checked === null) problems.push(problem(field, 'header', `is sent in header ${name}, so it must not contain line breaks or other control characters`));
        else if (typeof checked !== 'string') problems.push(problem(field, 'header', `is sent in header ${name}, so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign)`));
        else {
          // An action argument, placed after the API's, replaces its header whatever the letter case.
          for (const other of Object.keys(parts.headers)) if (other.toLowerCase() === lower) delete parts.headers[other];
          parts.headers[name] = text;
        }
      };
    }
    default:
      // API and auth arguments without a location are host variables only.
      return () => {};
  }
}
