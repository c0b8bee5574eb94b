import { RE2JS } from 're2js';
import { withJavaScriptClasses } from '../mapping/regex.ts';

/**
 * An argument's `pattern` on the linear-time engine (RE2JS), as regular
 * expressions of mappings are (engine/core/mapping/regex.ts): a caller's value
 * of any length is matched in time linear in its length, so no pattern can
 * stall the event loop. JavaScript syntax, the meaning of `\s` and `.` kept;
 * backreferences and lookaround do not compile (the load check reports
 * ARG_PATTERN_INVALID). Like JSON Schema's `pattern`, it is not anchored:
 * a match anywhere in the value will do.
 */
export function compilePattern(source: string): RE2JS {
  // The JavaScript parser first: it refuses what is not a regular expression at all, with its own message.
  const regex = new RegExp(source);
  return RE2JS.compile(withJavaScriptClasses(RE2JS.translateRegExp(regex.source)));
}

/** Why a pattern cannot be used, or null when it compiles. */
export function patternProblem(source: string): string | null {
  try {
    compilePattern(source);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
  }
}

const COMPILED = new Map<string, RE2JS>();
const MAX_CACHED = 1000;

/** Whether the pattern matches some part of the value. The pattern is one the load check accepted. */
export function matchesPattern(source: string, value: string): boolean {
  let re = COMPILED.get(source);
  if (re === undefined) {
    re = compilePattern(source);
    // Patterns come from definitions, so they are few; a bound keeps hot reloads of changing patterns from growing it forever.
    if (COMPILED.size >= MAX_CACHED) COMPILED.clear();
    COMPILED.set(source, re);
  }
  return re.matcher(value).find();
}
