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

  /**
   * Stops: the listeners run now (undici aborts the call and destroys its
   * socket, a retry's wait ends). The errors they make meanwhile (undici's
   * "aborted" errors) are made without stack frames: Node's streams format
   * the stack of the error a socket is destroyed with, and with source maps
   * on that was ~0.2 ms of every stopped call (see stopReason).
   */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    withoutStackFrames(() => this.emit('abort'));
  }
}

/**
 * Why a call stops (the caller went away, a deadline passed), as an Error
 * without stack frames. Node's streams read the stack of the error they are
 * destroyed with (internal/streams/destroy.js), and undici destroys the
 * app's socket with the stop's reason; with --enable-source-maps (npm
 * start's) formatting a stack maps every frame through the source maps:
 * ~0.2 ms of a stopped call's CPU, on every call of a crowd of callers
 * that time out together. A stop is not a bug: its frames would say nothing.
 */
export function stopReason(message: string): Error {
  return withoutStackFrames(() => new Error(message));
}

/** Runs `make` with errors made meanwhile capturing no stack frames; the limit is restored after, also when it throws. */
function withoutStackFrames<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
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
