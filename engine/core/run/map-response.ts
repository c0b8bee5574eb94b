import type { ActionEntry } from '../definitions/index.ts';
import { compileExpression, evaluateGuarded, MappingError, type GuardedExpression, type MappingLimits, type MappingWorkers } from '../mapping/index.ts';
import { copyBody, deferredBodyOf, type Abortable, type OutboundResponse } from '../../platform/outbound/index.ts';
import type { Proposal } from './envelope.ts';
import { withJsonText } from './envelope-json.ts';
import { RawRows } from './raw-rows.ts';
import type { MappingInput } from './mapping-input.ts';

export type { MappingInput };
import { traceMapping } from '../../platform/tracing/index.ts';


export type MappingOutcome = { ok: true; proposal: Proposal } | { ok: false; error: MappingError };

/**
 * Runs the action's response mapping under its guardrails; without one, a
 * 2xx body is the data as it is and any other status has no data (an error
 * page is no row: the client reads it in meta.response.body). A caller who
 * hangs up (`signal`) stops the mapping at its next turn: it rejects with
 * the signal's reason.
 */
export async function mapResponse(action: ActionEntry, input: MappingInput, signal?: Abortable, workers?: MappingWorkers): Promise<MappingOutcome> {
  if (!action.response) {
    // A large body is parsed and its rows written in a mapping worker as a mapped one is (AS_IS): read here, its
    // JSON.parse held the event loop (8 MB: ~0.7 s) for every other request.
    const taken = workers && inWorker(input, workers);
    if (!taken) return { ok: true, proposal: input.status >= 200 && input.status < 300 ? { data: input.body } : {} };
    const result = await evaluated(asIs(), input, signal, workers);
    return { ok: true, proposal: result as Proposal };
  }
  const expression = action.response as unknown as GuardedExpression;
  try {
    const result = await traceMapping(action.response, () => evaluated(expression, input, signal, workers));
    const proposal = result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Proposal) : { data: result };
    return { ok: true, proposal };
  } catch (error) {
    if (error instanceof MappingError) return { ok: false, error };
    throw error;
  }
}

/**
 * The mapping's result: from a mapping worker when the body is a large one the client left unparsed
 * (deferred-json.ts) and a worker has room for it, on this thread otherwise (parsing the body here).
 */
async function evaluated(expression: GuardedExpression, input: MappingInput, signal: Abortable | undefined, workers: MappingWorkers | undefined) {
  const deferred = workers && deferredBodyOf(input);
  if (deferred && workers && inWorker(input, workers)) {
    const mapped = workers.map(expression, { status: input.status, headers: input.headers, action: input.action, arguments: input.arguments }, deferred.bytes, signal);
    if (mapped) {
      const { json, result, data } = await mapped;
      deferred.learned(json);
      // The rows stay the bytes the worker wrote (raw-rows.ts).
      if (data) (result as Record<string, unknown>).data = new RawRows(data.bytes, data.rows, data.emptyRows);
      return result;
    }
  }
  // The proposal is read, never written into (envelope.ts builds the envelope anew): the rows may be the body's own.
  return evaluateGuarded(expression, input, {}, signal, { mayShareInput: true });
}

/** Whether the input's body is a large one the client left unparsed, for a mapping worker with room for it. */
function inWorker(input: MappingInput, workers: MappingWorkers): boolean {
  const deferred = deferredBodyOf(input);
  return deferred !== undefined && !deferred.parsed && workers.takes(deferred.bytes.length);
}

/**
 * What an action without a response mapping answers, as an expression for a mapping worker: a 2xx body is the
 * data (an array as it is, an object as its one row, null as none), any other status has none (envelope.ts).
 * Its limits are no tighter than the main thread's way, which has none.
 */
const AS_IS_SOURCE = 'status >= 200 and status < 300 ? { "data": $type(body) = "array" ? body : body = null ? [] : [body] } : {}';
const AS_IS_LIMITS: MappingLimits = { timeoutMs: 60_000, maxDepth: 100_000, maxSequence: 10_000_000, maxString: 2 ** 28, maxResultBytes: Number.MAX_SAFE_INTEGER };
let asIsExpression: GuardedExpression | undefined;

function asIs(): GuardedExpression {
  return (asIsExpression ??= compileExpression(AS_IS_SOURCE, { file: '(no response mapping)', line: 1, column: 1 }, AS_IS_LIMITS));
}

/** The response as a mapping and the envelope's `meta.response` see it; the JSON text a parsed body came from, and its bytes, go with it (see envelope-json.ts). */
export function responseFacts(response: OutboundResponse): { status: number; headers: Record<string, string>; body: unknown } {
  // copyBody: a deferred body (the client did not parse it) stays deferred.
  return withJsonText(copyBody(response, { status: response.status, headers: response.headers, body: null as unknown }), response.jsonText, { bytes: response.rawBody, utf8: response.jsonUtf8 === true });
}
