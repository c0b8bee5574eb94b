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
