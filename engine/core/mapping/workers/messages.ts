import type { MappingLimits } from '../limits.ts';
import type { ExpressionOrigin, MappingErrorDetails } from '../mapping-error.ts';

/** A mapping a worker is given: the expression (compiled there, once), the input without its body, and the body's bytes. */
export interface MapJob {
  type: 'map';
  id: number;
  expression: { source: string; at: ExpressionOrigin; limits: MappingLimits };
  /** The mapping input without `body` (status, headers, action, arguments: plain JSON). */
  input: Record<string, unknown>;
  /** The body as received, declared JSON in UTF-8: decoded and parsed in the worker; a text that is not JSON is the body as it is (as parseBody does). */
  bytes: Uint8Array;
}

/** The caller went away: the job stops at its next turn. */
export interface StopJob {
  type: 'stop';
  id: number;
}

export type ToWorker = MapJob | StopJob;

/**
 * A result's `data` array written apart, as UTF-8 JSON (its buffer transferred, not copied), with its
 * length and whether any row is an empty object: `result` is then the rest of the result.
 */
export interface SplitData {
  bytes: Uint8Array;
  rows: number;
  emptyRows: boolean;
}

/**
 * A job's end: `json` whether the text parsed as JSON; `result` the mapping's
 * result as JSON text (undefined when it yielded nothing), or the MappingError
 * it failed with, or `failed` (anything else: a defect, reported as such).
 */
export type FromWorker =
  | { id: number; json: boolean; result: string | undefined; data?: SplitData }
  | { id: number; json: boolean; error: { details: MappingErrorDetails; message: string } }
  | { id: number; failed: string }
  | { id: number; stopped: true };
