/** The guardrails every mapping evaluation runs with (MAPPING_TIMEOUT_MS, MAPPING_MAX_DEPTH, MAPPING_MAX_SEQUENCE). */
export interface MappingLimits {
  /** Wall-clock time one evaluation may take, in ms. */
  timeoutMs: number;
  /** Nesting depth of expression evaluation (jsonata's `stack` guardrail): deep or runaway recursion. */
  maxDepth: number;
  /** Longest array a mapping may build or produce (jsonata's `sequence` guardrail, plus a check of every result). */
  maxSequence: number;
}

export const DEFAULT_MAPPING_LIMITS: MappingLimits = { timeoutMs: 500, maxDepth: 200, maxSequence: 100_000 };
