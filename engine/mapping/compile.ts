import jsonata from 'jsonata';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from './limits.ts';
import { installGuard } from './guard.ts';
import { locate, MappingError, type ExpressionOrigin } from './mapping-error.ts';

/** An expression compiled once, when its definition is loaded; evaluate it with evaluateGuarded. */
export interface CompiledExpression {
  readonly source: string;
  readonly origin: ExpressionOrigin;
  readonly limits: MappingLimits;
  /** @internal the jsonata expression, guardrails installed. */
  readonly expression: jsonata.Expression;
}

/**
 * Parses a JSONata expression with the guardrails always on: jsonata's own
 * `timeout`, `stack` and `sequence` options (fixed here, at compile time,
 * because jsonata reads them from the compiled expression) plus the
 * gateway's hooks (see guard.ts). A syntax error is a MappingError (reason
 * `syntax`) naming file:line:column.
 */
export function compileExpression(source: string, origin: ExpressionOrigin, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): CompiledExpression {
  let expression: jsonata.Expression;
  try {
    expression = jsonata(source, { timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence });
  } catch (error) {
    const e = error as { code?: string; message?: string; position?: number; token?: string };
    const at = locate(source, startOfToken(source, e.position, e.token), origin);
    throw new MappingError({ ...at, reason: 'syntax', code: e.code }, `the mapping does not parse: ${e.message ?? String(error)}${e.code ? ` (${e.code})` : ''}`);
  }
  installGuard(expression);
  return { source, origin, limits, expression };
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
