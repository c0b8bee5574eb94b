import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { GatewayError } from '../../../platform/errors/index.ts';
import type { ContentCoding } from './content-coding.ts';

/**
 * The body of `req` decoded from `coding`, as a stream for readBody to read
 * (it counts the decoded bytes and stops at the limit).
 * The bytes as sent are counted here: past `limit`, decoding stops with 413,
 * since a body can be large as sent and decode to nothing (empty deflate
 * blocks) and would otherwise be read for as long as the client sends it.
 * A client hanging up ends it (an error of type `request.aborted`: the body was incomplete).
 * `stop()` ends the decoding when the reader gave up first.
 */
export function decodedBody(req: IncomingMessage, coding: Exclude<ContentCoding, 'identity'>, limit: number): { stream: Readable; stop(): void } {
  // gzip and deflate alike (as co-body's inflation did): createUnzip detects the zlib or gzip header.
  const decoder = coding === 'br' ? zlib.createBrotliDecompress() : zlib.createUnzip();
  const stop = (error?: Error) => {
    req.unpipe(decoder);
    req.removeListener('data', count);
    req.removeListener('close', hangUp);
    decoder.destroy(error);
  };
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) stop(GatewayError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes (as sent)`));
  };
  // A pipe does not end its destination when the source is cut off: without this the reader would wait forever.
  const hangUp = () => {
    if (!req.complete) stop(Object.assign(new Error('request aborted'), { type: 'request.aborted' }));
  };
  req.on('data', count);
  req.once('close', hangUp);
  req.pipe(decoder);
  return { stream: decoder, stop: () => stop() };
}
