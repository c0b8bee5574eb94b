import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { busyError, hold, letGo } from './buffered-bytes.ts';
import { OutboundError, tooLargeError } from './outbound-error.ts';

const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** At most this many stacked content-codings (as undici and curl do, against decompression chains). */
const MAX_CODINGS = 3;

export interface ReadBody {
  bytes: Buffer;
  /** Bytes as received, before content decoding. */
  wireBytes: number;
}

/** The two bounds of a read: one response (OUTBOUND_MAX_RESPONSE_BYTES), all reads of the process at once (OUTBOUND_MAX_BUFFERED_BYTES). */
export interface ReadLimits {
  maxBytes: number;
  maxBuffered: number;
}

/**
 * Reads a response body to the end, decoding its Content-Encoding (gzip,
 * deflate, br; several stacked), and aborts as soon as either the bytes
 * received or the bytes decoded pass `maxBytes`: a large or decompression-bomb
 * response never sits in memory whole. The bytes it keeps are held against
 * the process's bound (buffered-bytes.ts) while it reads. Aborting destroys
 * the body stream, which closes the connection.
 */
export async function readBody(body: Readable, contentEncoding: string | undefined, limits: ReadLimits, host: string): Promise<ReadBody> {
  const { maxBytes } = limits;
  // Most responses name no content-coding: nothing to split and look up.
  if (contentEncoding === undefined || contentEncoding === '') return await readPlain(body, limits, host);
  const decoders = decodersFor(contentEncoding, host);
  if (decoders.length === 0) return await readPlain(body, limits, host);
  let wireBytes = 0;
  let decodedBytes = 0;
  const chunks: Uint8Array[] = [];
  const countWire = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      wireBytes += chunk.length;
      if (wireBytes > maxBytes) return done(tooLargeError(host, maxBytes));
      done(null, chunk);
    },
  });
  let heldBytes = 0;
  const collect = new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      decodedBytes += chunk.length;
      if (decodedBytes > maxBytes) return done(tooLargeError(host, maxBytes));
      if (!hold(chunk.length, limits.maxBuffered)) return done(busyError(host, limits.maxBuffered));
      heldBytes += chunk.length;
      chunks.push(chunk);
      done();
    },
  });
  try {
    await pipeline([body, countWire, ...decoders, collect]);
  } catch (error) {
    letGo(heldBytes);
    if (error instanceof OutboundError) throw error;
    // No bytes at all under a Content-Encoding (a HEAD's, a 204's or 304's answer, an empty 200 a compressing
    // server labelled): there is nothing to decode, and no content is what it holds, not a broken gzip.
    if (wireBytes === 0 && decodingError(error, host, contentEncoding)) return { bytes: Buffer.alloc(0), wireBytes };
    throw decodingError(error, host, contentEncoding) ?? error;
  }
  letGo(heldBytes);
  return { bytes: Buffer.concat(chunks, decodedBytes), wireBytes };
}

/**
 * Whether `error`, ending the body of a 304, is undici's refusal of the
 * Content-Length a 304 may carry (RFC 9110 §8.6: the length the 200 would
 * have had; ASP.NET and HTTP.sys send it) though a 304 has no body: undici
 * checks it against the bytes read, none. Such a body is empty, not broken.
 */
export function notModifiedLength(status: number, error: unknown): boolean {
  return status === 304 && (error as { code?: unknown } | undefined)?.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';
}

/** zlib's or brotli's refusal of a body as the OutboundError it means (not valid data of its coding); null for any other error. */
export function decodingError(error: unknown, host: string, contentEncoding: string): OutboundError | null {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR_FORMAT_PADDING_1') {
    return new OutboundError('UPSTREAM_PROTOCOL_ERROR', `the response from ${host} is not valid ${contentEncoding} data`, { host, cause: code });
  }
  return null;
}

/**
 * A body without content-coding, read straight from the stream: no pipeline,
 * no Transform and Writable per response. (A pipeline aborts an
 * AbortController when it finishes, and the DOMException that makes has its
 * stack trace built, source-mapped under tsx: ~285 µs per 10-record
 * response.) The chunks are collected by 'data' listeners, not an async
 * iterator (which makes a promise and a result object per chunk, and a
 * stream of its own). Too many bytes destroy the stream, which closes the
 * connection; an error of the stream (a body timeout, the call's stop, a
 * reset) rejects with that error, and a close before the end with the
 * premature-close error an iterator gave.
 */
function readPlain(body: Readable, limits: ReadLimits, host: string): Promise<ReadBody> {
  const { maxBytes, maxBuffered } = limits;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      letGo(bytes);
      reject(error);
    };
    body.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (bytes + chunk.length > maxBytes) {
        fail(tooLargeError(host, maxBytes));
        body.destroy();
        return;
      }
      if (!hold(chunk.length, maxBuffered)) {
        fail(busyError(host, maxBuffered));
        body.destroy();
        return;
      }
      bytes += chunk.length;
      chunks.push(chunk);
    });
    body.on('end', () => {
      if (settled) return;
      settled = true;
      letGo(bytes);
      resolve({ bytes: Buffer.concat(chunks, bytes), wireBytes: bytes });
    });
    body.on('error', fail);
    // A body read to its end closes too: only an unsettled read is failed (an Error's stack trace is not cheap).
    body.on('close', () => {
      if (!settled) fail(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

export function decodersFor(contentEncoding: string | undefined, host: string): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw new OutboundError('UPSTREAM_PROTOCOL_ERROR', `the response from ${host} stacks ${codings.length} content-codings (at most ${MAX_CODINGS})`, { host });
  }
  // Codings are listed in the order they were applied; undo them last first.
  return codings.reverse().map((coding) => {
    const make = DECODERS[coding];
    if (!make) throw new OutboundError('UPSTREAM_PROTOCOL_ERROR', `the response from ${host} uses the unsupported content-coding "${coding.slice(0, 40)}"`, { host });
    return make();
  });
}
