import { OutboundError } from './outbound-error.ts';

/**
 * The response bytes every call of this process is reading at once (all
 * clients: the runs', the webhooks'), held against OUTBOUND_MAX_BUFFERED_BYTES:
 * the process's bound on outbound work is the memory its responses take, not
 * a count of calls or sockets. A call whose next chunk would go past it fails
 * at once (503 UPSTREAM_BUSY, Retry-After 1); the bytes a read holds are let
 * go when it ends, read whole or not.
 */
let held = 0;

/** Holds `bytes` more when they fit under `max`; false (nothing held) when they do not. */
export function hold(bytes: number, max: number): boolean {
  if (held + bytes > max) return false;
  held += bytes;
  return true;
}

export function letGo(bytes: number): void {
  held -= bytes;
}

/** What all reads hold now (for tests). */
export function bufferedBytes(): number {
  return held;
}

export function busyError(host: string, max: number): OutboundError {
  return new OutboundError(
    'UPSTREAM_BUSY',
    `the gateway is reading ${max} bytes of responses at once (OUTBOUND_MAX_BUFFERED_BYTES), the most it holds; the response from ${host} was not read, try again in 1 s`,
    { host, limit: max, setting: 'OUTBOUND_MAX_BUFFERED_BYTES', retryAfterSeconds: 1 },
  );
}
