import { Readable } from 'node:stream';
import { GatewayError } from '../../platform/errors/index.ts';
import type { ProxySettings } from './settings.ts';

/** The caller's body as the proxy sends it. */
export type OutgoingBody =
  | { kind: 'none' }
  /** Read whole (it fits PROXY_RETRY_BODY_BYTES): it can be sent again. */
  | { kind: 'held'; bytes: Buffer }
  /** Larger: streamed once, with its Content-Length when the caller gave one. */
  | { kind: 'stream'; stream: Readable; length: number | undefined };

/** The caller's request body: its stream, and its Content-Length when it sent one (null: none, or chunked). */
export interface IncomingBody {
  stream: Readable;
  length: number | null;
}

/**
 * What the proxy sends of the caller's body, in bounded memory: nothing for
 * an empty body; the bytes, when they fit PROXY_RETRY_BODY_BYTES (so a
 * token renewal, a rate-limit retry or a 307/308 can send them again);
 * otherwise a stream of what was read so far and the rest, read once as the
 * app takes it. A declared Content-Length over PROXY_MAX_REQUEST_BYTES is
 * 413 PAYLOAD_TOO_LARGE before anything is read; a streamed body is held to
 * it as it goes (platform/outbound/stream.ts).
 */
export async function outgoingBody(body: IncomingBody | null, settings: ProxySettings): Promise<OutgoingBody> {
  if (body === null || body.length === 0) return { kind: 'none' };
  if (body.length !== null && body.length > settings.maxRequestBytes) throw tooLarge(settings);
  const reader = body.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  if (body.length !== null && body.length > settings.retryBodyBytes) return { kind: 'stream', stream: Readable.from(rest([], reader)), length: body.length };
  const read: Buffer[] = [];
  let bytes = 0;
  for (;;) {
    const step = await reader.next();
    if (step.done) break;
    read.push(step.value);
    bytes += step.value.length;
    // Left unread: the answer closes the connection (close-unread.ts), so nothing more is taken from it.
    if (bytes > settings.maxRequestBytes) throw tooLarge(settings);
    // More than can be held: what was read goes first, then the rest as it comes.
    if (bytes > settings.retryBodyBytes) return { kind: 'stream', stream: Readable.from(rest(read, reader)), length: body.length ?? undefined };
  }
  if (bytes === 0) return { kind: 'none' };
  return { kind: 'held', bytes: read.length === 1 ? read[0]! : Buffer.concat(read, bytes) };
}

/**
 * The body read so far, then the rest. The caller's stream is not destroyed
 * when the app stops taking it (that would close the caller's connection
 * before the gateway could answer why): it is left unread.
 */
async function* rest(read: Buffer[], reader: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield* read.splice(0);
  for (let step = await reader.next(); !step.done; step = await reader.next()) yield step.value;
}

function tooLarge(settings: ProxySettings): GatewayError {
  return GatewayError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${settings.maxRequestBytes} bytes (PROXY_MAX_REQUEST_BYTES)`);
}
