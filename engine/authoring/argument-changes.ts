import type { Argument, ListOption, LookupList } from '../core/definitions/generated/definition-types.ts';
import { isStringFormat } from '../core/arguments/string-formats.ts';
import { same, shown, type DefinitionChange } from './definition-change.ts';

/** Records a change found under some owner (an action, an auth, the API); the caller adds app and version. */
export type Emit = (change: Pick<DefinitionChange, 'subject' | 'where' | 'change' | 'severity' | 'what'>) => void;

/**
 * Compares the arguments of one owner (`action list-issues`, `auth oauth2`,
 * `api`), matched by key: a renamed key is one argument removed and one added.
 * The rules follow what the engine does with a caller's values: unknown and
 * hidden keys are refused, a default satisfies `required`.
 */
export function compareArguments(owner: string, before: readonly Argument[] = [], after: readonly Argument[] = [], emit: Emit): void {
  const old = new Map(before.map((a) => [a.key, a]));
  const now = new Map(after.map((a) => [a.key, a]));
  for (const key of old.keys()) {
    if (!now.has(key)) emit({ subject: 'argument', where: `${owner}, argument ${key}`, change: 'removed', severity: 'breaking', what: 'removed: callers that send it are refused' });
  }
  for (const [key, arg] of now) {
    const was = old.get(key);
    const where = `${owner}, argument ${key}`;
    if (!was) {
      const needed = arg.required && arg.default === undefined;
      emit({ subject: 'argument', where, change: 'added', severity: needed ? 'breaking' : 'compatible', what: needed ? 'added, required without a default' : 'added' });
      continue;
    }
    for (const [severity, what, subject] of argumentChanges(was, arg)) emit({ subject: subject ?? 'argument', where, change: 'changed', severity, what });
  }
}

type Found = [DefinitionChange['severity'], string, DefinitionChange['subject']?];

function argumentChanges(was: Argument, arg: Argument): Found[] {
  const found: Found[] = [];
  const field = (name: keyof Argument, severity: Found[0]) => {
    if (!same(was[name], arg[name])) found.push([severity, `${name} ${shown(was[name])} → ${shown(arg[name])}`]);
  };
  field('dataType', 'breaking');
  field('location', 'breaking');
  // The name the app expects: a client's value now lands elsewhere.
  if ((was.externalKey ?? was.key) !== (arg.externalKey ?? arg.key)) found.push(['breaking', `externalKey ${shown(was.externalKey ?? was.key)} → ${shown(arg.externalKey ?? arg.key)}`]);
  field('parent', 'breaking');
  if (!was.required && arg.required) found.push(arg.default === undefined ? ['breaking', 'now required'] : ['compatible', 'now required (its default fills it)']);
  if (was.required && !arg.required) found.push(['compatible', 'no longer required']);
  if (!was.hidden && arg.hidden) found.push(['breaking', 'now hidden: callers that send it are refused']);
  if (was.hidden && !arg.hidden) found.push(['compatible', 'no longer hidden']);
  // A hidden default is what every run sends; a visible one, what a run sends when the caller gives none.
  if (!same(was.default, arg.default)) found.push(['noted', `${arg.hidden ? 'hidden default' : 'default'} ${shown(was.default)} → ${shown(arg.default)}`]);
  // A value rule added or tightened refuses values that passed; removed or loosened, it refuses none of them.
  // A hidden argument takes no caller's value: its rules only hold its default, which is checked at load, so no caller can be refused.
  const rules: Found[] = [];
  if (arg.integer && !was.integer) rules.push(['breaking', `integer ${shown(was.integer)} → true: fractions are refused`]);
  else if (!same(was.integer, arg.integer)) rules.push(['compatible', `integer ${shown(was.integer)} → ${shown(arg.integer)}`]);
  limit(rules, was, arg, 'minimum', (before, now) => now > before, 'smaller values are refused');
  limit(rules, was, arg, 'maximum', (before, now) => now < before, 'larger values are refused');
  limit(rules, was, arg, 'minLength', (before, now) => now > before, 'shorter values are refused');
  limit(rules, was, arg, 'maxLength', (before, now) => now < before, 'longer values are refused');
  // Whether one pattern accepts all another does is undecidable here: any new or changed pattern counts as tighter.
  if (arg.pattern !== undefined && arg.pattern !== was.pattern) rules.push(['breaking', `pattern ${shown(was.pattern)} → ${arg.pattern}: values that do not match are refused`]);
  else if (!same(was.pattern, arg.pattern)) rules.push(['compatible', `pattern ${shown(was.pattern)} → ${shown(arg.pattern)}`]);
  const hiddenBoth = was.hidden === true && arg.hidden === true;
  for (const [severity, what] of rules) found.push(hiddenBoth && severity === 'breaking' ? ['noted', `${what.replace(/: [^:]*$/, '')} (hidden: callers send no value, its default is checked at load)`] : [severity, what]);
  if (!was.multipleValues !== !arg.multipleValues) found.push(['breaking', arg.multipleValues ? 'now takes multiple values' : 'no longer takes multiple values']);
  else if (was.multipleValues && arg.multipleValues) {
    if (was.multipleValues.dataType !== arg.multipleValues.dataType) found.push(['breaking', `multipleValues.dataType ${was.multipleValues.dataType} → ${arg.multipleValues.dataType}`]);
    if (was.multipleValues.delimiter !== arg.multipleValues.delimiter) {
      found.push(['breaking', `multipleValues.delimiter ${shown(was.multipleValues.delimiter)} → ${shown(arg.multipleValues.delimiter)}`]);
    }
  }
  // On a String, format is a rule (a new or changed one refuses values); on a Date, how the date is sent.
  if (isStringFormat(arg.format) && arg.format !== was.format) found.push(['breaking', `format ${shown(was.format)} → ${arg.format}: values of another format are refused`]);
  else field('format', isStringFormat(was.format) && arg.format === undefined ? 'compatible' : 'noted');
  field('mapper', 'noted');
  field('escape', 'noted');
  // The same value reaches another path (src/lib instead of src%2Flib), and ., .. or empty segments are refused with it.
  field('allowSlashes', 'noted');
  // The same fields move between the top level of the body and a field of it: what the app receives changes.
  field('asBody', 'breaking');
  // The same values reach the app written another way (o:tag=a&o:tag=b instead of o:tag[0]=a): it may read them otherwise.
  field('arrayStyle', 'noted');
  field('label', 'compatible');
  field('description', 'compatible');
  field('component', 'compatible');
  found.push(...listChanges(was, arg));
  return found;
}

function listChanges(was: Argument, arg: Argument): Found[] {
  const before = was.list;
  const after = arg.list;
  if (!before || !after) return !before && !after ? [] : [['breaking', after ? 'now picks from a list' : 'no longer picks from a list']];
  if (before.type !== after.type) return [['breaking', `list.type ${before.type} → ${after.type}`]];
  if (before.type === 'Fixed' && after.type === 'Fixed') {
    const found: Found[] = [];
    const values = (options: ListOption[]) => new Map(options.map((o) => [JSON.stringify(o.value), o]));
    const old = values(before.options);
    const now = values(after.options);
    for (const [value] of old) if (!now.has(value)) found.push(['breaking', `list option ${value} removed`, 'list-option']);
    for (const [value, option] of now) {
      const prior = old.get(value);
      if (!prior) found.push(['compatible', `list option ${value} added`, 'list-option']);
      else if (prior.label !== option.label) found.push(['compatible', `list option ${value} label ${shown(prior.label)} → ${shown(option.label)}`, 'list-option']);
    }
    return found;
  }
  if (before.type === 'Lookup' && after.type === 'Lookup') return lookupChanges(before, after);
  return same(before, after) ? [] : [['noted', `list settings ${shown(before)} → ${shown(after)}`]];
}

/** strict decides whether a run refuses a value: on is breaking, off compatible; the rest only changes the builder's dropdown. */
function lookupChanges(before: LookupList, after: LookupList): Found[] {
  const found: Found[] = [];
  if (before.strict !== true && after.strict === true) {
    found.push(['breaking', `list.strict ${shown(before.strict)} → true: runs look the value up and refuse one not on the first page of ${after.action}`]);
  } else if (before.strict === true && after.strict !== true) {
    found.push(['compatible', `list.strict true → ${shown(after.strict)}: runs send the value as given`]);
  }
  if (before.searchArgument !== after.searchArgument) found.push(['noted', `list.searchArgument ${shown(before.searchArgument)} → ${shown(after.searchArgument)}`]);
  const { strict: _s1, searchArgument: _a1, ...restBefore } = before;
  const { strict: _s2, searchArgument: _a2, ...restAfter } = after;
  if (!same(restBefore, restAfter)) found.push(['noted', `list settings ${shown(restBefore)} → ${shown(restAfter)}`]);
  return found;
}

/** A numeric limit: added or moved so that it refuses more (`tighter`) is breaking; raised, lowered the other way or removed, compatible. */
function limit(found: Found[], was: Argument, arg: Argument, name: 'minimum' | 'maximum' | 'minLength' | 'maxLength', tighter: (before: number, now: number) => boolean, refused: string): void {
  const before = was[name];
  const now = arg[name];
  if (now === before) return;
  if (now !== undefined && (before === undefined || tighter(before, now))) found.push(['breaking', `${name} ${shown(before)} → ${now}: ${refused}`]);
  else found.push(['compatible', `${name} ${shown(before)} → ${shown(now)}`]);
}
