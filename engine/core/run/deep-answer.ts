import { GatewayError } from '../../platform/errors/index.ts';
import { deferredBodyOf } from '../../platform/outbound/index.ts';
import { nestedDeeperThan, textNestedDeeperThan } from '../../platform/validation/json-limits.ts';

/**
 * How deep an app's JSON answer may nest and still be mapped and answered. Not checked on every answer (a scan of
 * the text costs three quarters of its parse): only when a run failed by running out of call stack, which the
 * recursive readers of a value (JSON.stringify, a structured clone, the mapping) do somewhere past a few thousand
 * levels. Then the answer is measured, and one deeper than this is the app's fault, said as such.
 */
export const ANSWER_MAX_DEPTH = 1_000;

/** Whether `error` is a call stack that ran out (on this thread, or in a mapping worker, which says so in its message). */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof Error && error.message.includes('Maximum call stack size exceeded');
}

/**
 * 502 UPSTREAM_PROTOCOL_ERROR when the app's answer (a response's or mapping input's `body`, parsed or still
 * deferred, or any value made of it such as an envelope) nests past ANSWER_MAX_DEPTH; null otherwise.
 */
export function tooDeepAnswer(holder: { body?: unknown } | undefined): GatewayError | null {
  if (!holder) return null;
  const deferred = deferredBodyOf(holder);
  const deep = deferred && !deferred.parsed ? textNestedDeeperThan(deferred.text, ANSWER_MAX_DEPTH) : nestedDeeperThan(holder.body, ANSWER_MAX_DEPTH);
  return deep ? GatewayError.of('UPSTREAM_PROTOCOL_ERROR', `the app's answer nests JSON more than ${ANSWER_MAX_DEPTH} levels deep: the gateway cannot map or answer it`) : null;
}
