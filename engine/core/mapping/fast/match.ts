import { LinearRegex } from '../regex.ts';
import { bail, createSequence, pushItem, type Run } from './values.ts';

/**
 * $match with a regular expression literal, ported from jsonata 2.2.2
 * (evaluateRegex's matcher closure and fn.match): every match from the
 * start of the string, as {match, index, groups} (an unmatched group is
 * undefined), up to `limit`, in a sequence, so that no match is nothing and
 * one match is that object. A zero-length match after the first is D1004 (a
 * bail), as is a negative limit (D3040).
 *
 * The regex is the linear-time engine jsonata is given (../regex.ts), made
 * once per expression from the literal (flags `g` plus any of `i` `m`):
 * jsonata sets lastIndex before every exec, and so does this port, so no
 * state is carried from one evaluation to the next. A literal the linear
 * engine refuses is outside the subset: jsonata reports it.
 */
export function regexOf(value: unknown): LinearRegex | undefined {
  if (!(value instanceof RegExp) || !/^gi?m?$/.test(value.flags)) return undefined;
  try {
    return new LinearRegex(value);
  } catch {
    return undefined;
  }
}

interface Found {
  match: string;
  start: number;
  groups: (string | undefined)[];
}

/** The matcher closure of evaluateRegex: the first match at or after `from`. */
function exec(re: LinearRegex, str: string, from: number): Found | undefined {
  re.lastIndex = from;
  const found = re.exec(str);
  if (found === null) return undefined;
  return { match: found[0] ?? '', start: found.index, groups: found.slice(1) };
}

/** fn.match, once the signature `<s-f<s:o>n?:a<o>>` is checked: `str` a string or undefined, `limit` a number or undefined. */
export function match(str: string | undefined, re: LinearRegex, limit: number | undefined, run: Run): unknown {
  if (str === undefined) return undefined;
  if (limit !== undefined && limit < 0) bail(); // D3040
  const result = createSequence();
  if (limit === undefined || limit > 0) {
    let count = 0;
    let found = exec(re, str, 0);
    while (found !== undefined && (limit === undefined || count < limit)) {
      pushItem(result, { match: found.match, index: found.start, groups: found.groups }, run);
      // the closure's next(): none once lastIndex reaches the end, and a zero-length match would never progress
      found = re.lastIndex >= str.length ? undefined : exec(re, str, re.lastIndex);
      if (found !== undefined && found.match === '') bail(); // D1004
      count++;
    }
  }
  return result;
}
