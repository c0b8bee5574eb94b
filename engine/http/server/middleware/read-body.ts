import type { Readable } from 'node:stream';
import { GatewayError } from '../../../platform/errors/index.ts';

/**
 * A body's bytes, read whole into Buffers and decoded as UTF-8 once, with
 * what co-body's reader (raw-body, iconv-lite) did for the gateway and no
 * more: at most `limit` bytes (413 as soon as there are more, the stream
 * halted; at once when `length`, the Content-Length, says so), a body that
 * ends short of its Content-Length or is cut off is incomplete (400
 * INVALID_JSON), bytes that are not UTF-8 become U+FFFD, and one leading byte
 * order mark is dropped. A stream error (a decoder's, or decodedBody's 413 as
 * sent) rejects with that error. `decoded` only names the limit's 413
 * message: the stream is the body decoded from its Content-Encoding.
 */
export function readBody(stream: Readable, length: number | null, limit: number, decoded: boolean): Promise<string> {
  const tooLarge = () => GatewayError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes${decoded ? ' (decoded)' : ''}`);
  // Left paused, as raw-body left it: close-unread answers with Connection: close, so the rest is never read.
  if (length !== null && length > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // The listeners stay (the stream is this request's alone) and ignore what comes once settled:
    // removing them costs more than the read (EventEmitter deletes a property per event).
    let settled = false;
    const done = (error: unknown, text?: string) => {
      if (settled) return;
      settled = true;
      if (error === null) return resolve(text!);
      // Halted, as raw-body did: nothing more is read from a body that was refused.
      stream.unpipe();
      stream.pause();
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > limit) return done(tooLarge());
      chunks.push(chunk);
    });
    stream.on('end', () => {
      if (settled) return;
      if (length !== null && received !== length) return done(incomplete());
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      const text = bytes.toString('utf8');
      done(null, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    });
    stream.on('error', (error: unknown) => done(error));
    // The client hung up before the end (Node's 'aborted'), or the stream closed without ending.
    const cutOff = () => {
      if (!settled) done(incomplete());
    };
    stream.on('aborted', cutOff);
    stream.on('close', cutOff);
  });
}

function incomplete(): GatewayError {
  return GatewayError.of('INVALID_JSON', 'request body was incomplete');
}
