import type { ActionEntry } from '../definitions/index.ts';
import { evaluateGuarded, MappingError } from '../mapping/index.ts';
import type { Abortable, OutboundResponse } from '../../platform/outbound/index.ts';
import type { Proposal } from './envelope.ts';
import { withJsonText } from './envelope-json.ts';
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
export async function mapResponse(action: ActionEntry, input: MappingInput, signal?: Abortable): Promise<MappingOutcome> {
  if (!action.response) return { ok: true, proposal: input.status >= 200 && input.status < 300 ? { data: input.body } : {} };
  try {
    const result = await traceMapping(action.response, () => evaluateGuarded(action.response as never, input, {}, signal));
    const proposal = result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Proposal) : { data: result };
    return { ok: true, proposal };
  } catch (error) {
    if (error instanceof MappingError) return { ok: false, error };
    throw error;
  }
}

/** The response as a mapping and the envelope's `meta.response` see it; the JSON text a parsed body came from, and its bytes, go with it (see envelope-json.ts). */
export function responseFacts(response: OutboundResponse): { status: number; headers: Record<string, string>; body: unknown } {
  return withJsonText({ status: response.status, headers: response.headers, body: response.body }, response.jsonText, { bytes: response.rawBody, utf8: response.jsonUtf8 === true });
}
