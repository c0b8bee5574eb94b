/**
 * The cooperative slice: how long a mapping evaluation may keep the event
 * loop before it lets it turn (guard.ts, and the fast path's resumable form),
 * and how long the fast path runs synchronously before it goes on resumably
 * (fast/index.ts). 10 ms.
 *
 * setSliceMs is a test seam: a spec sets it to 0 (yield, or go on
 * resumably, at the first check), a fraction of a millisecond (yield often),
 * or Infinity (never) so that an outcome can be checked not to depend on
 * timing, and restores it after.
 */
export const SLICE_MS = 10;

/**
 * What stops an evaluation between slices: the run's caller going away (a
 * CallStop or an AbortSignal). Checked each time an evaluation has let the
 * event loop turn, so a mapping nobody waits for any more stops within a
 * slice instead of computing up to MAPPING_TIMEOUT_MS; it rejects with the
 * stop's reason.
 */
export interface MappingStop {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

/** The stop's reason as the evaluation rejects with it. */
export function stoppedBy(stop: MappingStop): Error {
  return stop.reason instanceof Error ? stop.reason : new Error('the mapping was stopped: its caller went away');
}

let sliceMs = SLICE_MS;

export function currentSliceMs(): number {
  return sliceMs;
}

/** For tests: set the slice (ms); returns the previous value, to restore. */
export function setSliceMs(ms: number): number {
  const previous = sliceMs;
  sliceMs = ms;
  return previous;
}
