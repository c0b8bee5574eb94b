import type { MapperEvaluator } from './types.ts';

/**
 * Evaluates a mapper with jsonata as compiled, without guardrails. The run
 * engine passes the guarded evaluator of engine/core/mapping (timeout, stack and
 * sequence limits) instead; this one serves tests and offline tools.
 */
export const evaluateMapperPlainly: MapperEvaluator = (compiled, input) => Promise.resolve(compiled.expression.evaluate(input));
