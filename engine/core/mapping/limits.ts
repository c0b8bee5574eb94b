import { integer, type Env } from '../../platform/settings/env.ts';

/** The guardrails every mapping evaluation runs with (MAPPING_TIMEOUT_MS, MAPPING_MAX_DEPTH, MAPPING_MAX_SEQUENCE, MAPPING_MAX_STRING, MAPPING_MAX_RESULT_BYTES). */
export interface MappingLimits {
  /** Time one evaluation may compute, in ms: its own slices added up, not the turns it leaves to other requests (guard.ts, fast/index.ts). */
  timeoutMs: number;
  /** Nesting depth of expression evaluation (counted by the guard as nesting, depth.ts; a literal's width does not count): deep or runaway recursion. */
  maxDepth: number;
  /** Longest array a mapping may build or produce (jsonata's `sequence` guardrail, plus a check of every result). */
  maxSequence: number;
  /** Longest string, in characters, a step of a mapping may build (`&`, a call; checked before $pad, $join and $string build one). Strings of the input pass as they are. */
  maxString: number;
  /**
   * Largest result, as the length of its JSON; also the most characters of
   * strings one evaluation may build in all (by `&` and function calls), so
   * that a loop of strings each under maxString cannot add up unbounded.
   */
  maxResultBytes: number;
}

export const DEFAULT_MAPPING_LIMITS: MappingLimits = { timeoutMs: 500, maxDepth: 200, maxSequence: 100_000, maxString: 1_048_576, maxResultBytes: 16_777_216 };

/** MAPPING_*: the guardrails of every mapping evaluation. */
export function mappingLimitsFromEnv(env: Env): MappingLimits {
  const d = DEFAULT_MAPPING_LIMITS;
  return {
    timeoutMs: integer(env, 'MAPPING_TIMEOUT_MS', d.timeoutMs, 1, 60_000),
    maxDepth: integer(env, 'MAPPING_MAX_DEPTH', d.maxDepth, 10, 100_000),
    maxSequence: integer(env, 'MAPPING_MAX_SEQUENCE', d.maxSequence, 1, 10_000_000),
    // up to 2^28: V8's longest string is about 2^29 characters, and a step may add two strings of the limit
    maxString: integer(env, 'MAPPING_MAX_STRING', d.maxString, 1, 268_435_456),
    maxResultBytes: integer(env, 'MAPPING_MAX_RESULT_BYTES', d.maxResultBytes, 1, 1_073_741_824),
  };
}
