import type { CompiledExpression, RetryEntry } from '../definitions/index.ts';
import { evaluateGuarded, MappingError } from '../mapping/index.ts';
import { flagOf } from './envelope-flags.ts';
import type { MappingInput } from './mapping-input.ts';

/** What the API's retry policy and the action's mapping say of one answer. */
export interface RateLimitVerdict {
  /** The answer is a rate limit (meta.tooManyRequests true). */
  limited: boolean;
  /** A rate limit not worth retrying (retry.giveUpWhen): answered 429 at once. */
  giveUp: boolean;
}

/**
 * Whether an answer is a rate limit: the action mapping's
 * meta.tooManyRequests true, or the API's `retry.when` (default status 429;
 * if the expression fails or hits a guardrail the default stands). A
 * mapping's `false` adds nothing and takes nothing away: mappings compute
 * the flag for the signal they know (a body code), and that is false on a
 * plain 429, which must still be retried. A rate limit is given up on at
 * once when the API's `retry.giveUpWhen` says true (if it fails, the rate
 * limit is retried).
 */
export async function rateLimitVerdict(policy: RetryEntry, fromMapping: unknown, input: MappingInput, failed?: (error: MappingError, which: 'when' | 'giveUpWhen') => void): Promise<RateLimitVerdict> {
  const limited =
    flagOf(fromMapping) === true || (policy.when ? ((await guarded(policy.when, input, (error) => failed?.(error, 'when'))) ?? input.status === 429) : input.status === 429);
  if (!limited) return { limited, giveUp: false };
  return { limited, giveUp: policy.giveUpWhen ? (await guarded(policy.giveUpWhen, input, (error) => failed?.(error, 'giveUpWhen'))) === true : false };
}

/** The expression's answer as a boolean; undefined when it fails (told to `failed`), hits a guardrail or gives no boolean. */
async function guarded(expression: CompiledExpression, input: MappingInput, failed: (error: MappingError) => void): Promise<boolean | undefined> {
  try {
    const result = await evaluateGuarded(expression as never, input);
    return typeof result === 'boolean' ? result : undefined;
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    failed(error);
    return undefined;
  }
}
