import { EventEmitter } from 'node:events';

/**
 * What stops a run, or one outbound call: the caller hanging up, the call's
 * total deadline. undici takes an EventEmitter with `aborted` and `reason` as
 * a request's signal (documented beside AbortSignal) and aborts with that
 * reason, as it does for an AbortSignal. Making an AbortSignal and listening
 * to it costs ~20 µs per run and call on Node 20 (the signal is built lazily
 * and EventTarget listeners are slow) for something that fires almost never;
 * an EventEmitter costs next to nothing.
 */
export class CallStop extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** A CallStop, or an AbortSignal from a caller that has one. */
export type Abortable = CallStop | AbortSignal;

/** Calls `listener` once when `signal` aborts; answers the function that stops listening. */
export function onAbort(signal: Abortable, listener: () => void): () => void {
  if (signal instanceof CallStop) {
    signal.once('abort', listener);
    return () => signal.removeListener('abort', listener);
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
