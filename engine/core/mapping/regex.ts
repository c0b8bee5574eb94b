import { RE2JS } from 're2js';

/**
 * Regular expressions in mappings run on a linear-time engine: the values
 * they are matched against are the third party's, so a backtracking engine
 * would hand it the worst case (`(a+)+$` on 25 a's and a `!` is seconds of
 * V8's engine, doubling with each further a). RE2JS, a pure-JS port of RE2,
 * matches in time linear in the string; it lacks the features that need
 * backtracking (backreferences `\1`, lookahead `(?=`, `(?!`, lookbehind),
 * and those are refused with a message that says so: at load time for a
 * definition (see unsupportedRegex), as a MAPPING_ERROR (reason `regex`)
 * for any other expression when it runs.
 *
 * Three classes where RE2 and JavaScript differ are rewritten to keep
 * JavaScript's meaning: `\s` and `\S` (JavaScript counts Unicode spaces,
 * RE2 only ASCII ones) and `.` (JavaScript stops at \r, \u2028, \u2029 as
 * well as \n). RE2JS.translateRegExp does the rest (named groups, \u
 * escapes, `/`).
 */

const JS_SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** JavaScript's `\s`, `\S` and `.` in RE2 syntax, leaving everything escaped or inside a class otherwise as it is. */
export function withJavaScriptClasses(re2Source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < re2Source.length; i++) {
    const c = re2Source[i]!;
    if (c === '\\') {
      const next = re2Source[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += c + next;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      // a `]` first in the class (or after ^) is a literal
      if (re2Source[i + 1] === '^') out += re2Source[++i];
      if (re2Source[i + 1] === ']') out += re2Source[++i];
    } else out += c === '.' ? JS_DOT : c;
  }
  return out;
}

/** What a regular expression literal of a mapping compiles to; the RE2JS syntax error when the linear engine cannot run it. */
function compile(regex: RegExp): RE2JS {
  let flags = 0;
  if (regex.flags.includes('i')) flags |= RE2JS.CASE_INSENSITIVE;
  if (regex.flags.includes('m')) flags |= RE2JS.MULTILINE;
  return RE2JS.compile(withJavaScriptClasses(RE2JS.translateRegExp(regex.source)), flags);
}

const COMPILED = new WeakMap<RegExp, RE2JS>();

/** The error thrown for a regular expression the linear engine refuses (code `REGEX`, jsonata-style). */
export interface RegexRefusal {
  code: 'REGEX';
  message: string;
  value: string;
}

function refusal(regex: RegExp, error: unknown): RegexRefusal {
  const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
  return {
    code: 'REGEX',
    value: regex.source,
    message: `the regular expression /${regex.source}/ cannot run on the linear-time engine (${why}); backreferences and lookaround are not supported`,
  };
}

/** The compiled RE2JS of a literal, made once per RegExp (a compiled expression keeps its literals). Throws a RegexRefusal. */
export function linearOf(regex: RegExp): RE2JS {
  let re = COMPILED.get(regex);
  if (re === undefined) {
    try {
      re = compile(regex);
    } catch (error) {
      throw refusal(regex, error);
    }
    COMPILED.set(regex, re);
  }
  return re;
}

/** exec()'s answer: the match, its groups (undefined when a group took no part), and where it starts. */
export type LinearMatch = (string | undefined)[] & { index: number };

/**
 * The RegexEngine given to jsonata (`jsonata(source, { RegexEngine })`) and
 * used by the fast path: the part of RegExp that jsonata's evaluateRegex
 * uses, a global regex's `lastIndex` and `exec`. Constructed from the
 * literal's RegExp, as jsonata does.
 */
export class LinearRegex {
  lastIndex = 0;
  readonly #re: RE2JS;

  constructor(regex: RegExp) {
    this.#re = linearOf(regex);
  }

  exec(str: string): LinearMatch | null {
    if (this.lastIndex > str.length) {
      this.lastIndex = 0;
      return null;
    }
    const matcher = this.#re.matcher(str);
    if (!matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const count = matcher.groupCount();
    const found = new Array<string | undefined>(count + 1) as LinearMatch;
    found[0] = matcher.group() ?? '';
    for (let i = 1; i <= count; i++) found[i] = matcher.group(i) ?? undefined;
    found.index = matcher.start();
    this.lastIndex = matcher.end();
    return found;
  }
}

/**
 * The first regular expression literal in a parsed jsonata AST that the
 * linear engine refuses, with the offset of its opening `/` in the source;
 * undefined when every literal runs. For the load-time check of definitions.
 */
export function unsupportedRegex(ast: unknown): { offset: number; refusal: RegexRefusal } | undefined {
  const stack: unknown[] = [ast];
  const seen = new Set<object>();
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (node instanceof RegExp) continue;
    const { type, value, position } = node as { type?: unknown; value?: unknown; position?: unknown };
    if (type === 'regex' && value instanceof RegExp) {
      try {
        linearOf(value);
      } catch (error) {
        const literal = `/${value.source}/${value.flags.replace('g', '')}`;
        const end = typeof position === 'number' ? position : literal.length;
        return { offset: Math.max(0, end - literal.length), refusal: error as RegexRefusal };
      }
    }
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push(child);
  }
  return undefined;
}
