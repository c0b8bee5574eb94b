import jsonata from 'jsonata';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from './limits.ts';
import { installSizedBuiltIns } from './builtins.ts';
import { installGuard } from './guard.ts';
import { LinearRegex } from './regex.ts';
import { locate, MappingError, type ExpressionOrigin } from './mapping-error.ts';

/**
 * What evaluateGuarded needs: the expression's text, where that text starts
 * in its definition file, and the jsonata expression made by guardedJsonata.
 * (The definitions snapshot's compiled expressions have this shape.)
 */
export interface GuardedExpression {
  readonly source: string;
  readonly at: ExpressionOrigin;
  readonly expression: jsonata.Expression;
}

const LIMITS = new WeakMap<jsonata.Expression, MappingLimits>();

/**
 * jsonata(source) with the guardrails always on: jsonata's own `sequence`
 * option (fixed at compile time: jsonata reads it from the compiled
 * expression), MAPPING_TIMEOUT_MS counted by the guard as the evaluation's
 * own time (guard.ts), MAPPING_MAX_DEPTH counted by the guard as nesting
 * (depth.ts; jsonata's `stack` option is left unset, as it adds up the
 * members of literals), regular expressions on the linear-time
 * engine (regex.ts), the gateway's hooks (guard.ts) and the size-checked
 * built-ins (builtins.ts). Throws jsonata's syntax error as it is, for a
 * caller that locates it itself.
 */
export function guardedJsonata(source: string, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): jsonata.Expression {
  const RegexEngine = LinearRegex as unknown as RegExpConstructor; // the part of RegExp jsonata uses: lastIndex and exec
  const expression = jsonata(source, { sequence: limits.maxSequence, RegexEngine });
  installGuard(expression, limits);
  installSizedBuiltIns(expression, limits);
  LIMITS.set(expression, limits);
  return expression;
}

/** The limits an expression was compiled with; undefined when it was not made by guardedJsonata. */
export function limitsOf(expression: jsonata.Expression): MappingLimits | undefined {
  return LIMITS.get(expression);
}

/**
 * Compiles once, when the definition is loaded. A syntax error is a
 * MappingError (reason `syntax`) naming file:line:column, counted from `at`
 * (where the expression's first character is in the file).
 */
export function compileExpression(source: string, at: ExpressionOrigin, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): GuardedExpression {
  try {
    return { source, at, expression: guardedJsonata(source, limits) };
  } catch (error) {
    const e = error as { code?: string; message?: string; position?: number; token?: string };
    const where = locate(source, startOfToken(source, e.position, e.token), at);
    throw new MappingError({ ...where, reason: 'syntax', code: e.code }, `the mapping does not parse: ${e.message ?? String(error)}${e.code ? ` (${e.code})` : ''}`);
  }
}

/** jsonata positions point just past the token; step back to its first character (or one character when the token is not there as written). */
export function startOfToken(source: string, position: number | undefined, token: unknown): number | undefined {
  if (position === undefined) return undefined;
  const text = typeof token === 'string' ? token : '';
  if (text !== '' && source.slice(position - text.length, position) === text) {
    const start = position - text.length;
    return source[start - 1] === '$' ? start - 1 : start;
  }
  return Math.max(0, Math.min(position, source.length) - 1);
}
