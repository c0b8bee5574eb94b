import { TextDecoder } from 'node:util';
import { isJsonType } from './encode.ts';
import type { JsonValue } from './types.ts';

/**
 * The body as the mapping sees it: parsed JSON when the Content-Type says
 * JSON, decoded text otherwise (the charset parameter honoured, UTF-8 by
 * default), null when empty. Declared JSON that does not parse is not an
 * error here: the text is returned with `invalidJson: true`, and the mapping
 * (or the engine) decides what that means. Parsed JSON comes with the text it
 * was parsed from (`jsonText`), so the envelope can carry the body as the app
 * wrote it instead of serialising the parsed value again.
 */
export function parseBody(bytes: Buffer, contentType: string | undefined): { body: JsonValue | string | null; invalidJson?: true; jsonText?: string; jsonUtf8?: true } {
  if (bytes.length === 0) return { body: null };
  const reading = readingOf(contentType);
  const text = reading.decoder.decode(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  if (!reading.json) return { body: text };
  try {
    const body = JSON.parse(text) as JsonValue;
    // The envelope copies the app's bytes as they are only when they were read as UTF-8 (envelope-json.ts).
    return reading.decoder.encoding === 'utf-8' ? { body, jsonText: text, jsonUtf8: true } : { body, jsonText: text };
  } catch {
    return { body: text, invalidJson: true };
  }
}

/**
 * A body that may be left unparsed (deferred-json.ts), as the UTF-8 bytes of its JSON text, or null when it
 * may not (not declared JSON, or empty). Read as UTF-8 (no charset, or a UTF-8 one), the body's own bytes,
 * searched and decoded anywhere as parseBody would. In another charset (ISO-8859-1, UTF-16), its text as
 * parseBody decodes it, encoded as UTF-8: decoding and encoding are native and linear in the size, while the
 * parse, which builds the value, is what a large body must not cost the thread that serves every request.
 */
export function deferrableJsonBytes(bytes: Buffer, contentType: string | undefined): Buffer | null {
  if (bytes.length === 0) return null;
  const reading = readingOf(contentType);
  if (!reading.json) return null;
  if (reading.decoder.encoding === 'utf-8') return bytes;
  return Buffer.from(reading.decoder.decode(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)), 'utf8');
}

/** UTF-8 bytes decoded as parseBody decodes them (a byte order mark dropped, an invalid sequence replaced). */
export function decodeUtf8(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

/** How a body of one Content-Type is read: its decoder (by the charset, UTF-8 when none or unknown) and whether it is JSON. */
interface Reading {
  decoder: TextDecoder;
  json: boolean;
}

/**
 * A TextDecoder keeps no state between decode() calls made without
 * `stream: true`, so one per charset serves every response; and a
 * Content-Type's verdict is remembered by its text (apps send a handful).
 */
const UTF8 = new TextDecoder('utf-8');
const decoders = new Map<string, TextDecoder>([['utf-8', UTF8]]);
const readings = new Map<string, Reading>();
const REMEMBERED_TYPES = 200;
const NO_TYPE: Reading = { decoder: UTF8, json: false };

function readingOf(contentType: string | undefined): Reading {
  if (contentType === undefined) return NO_TYPE;
  let reading = readings.get(contentType);
  if (reading === undefined) {
    reading = { decoder: decoderFor(/;\s*charset="?([\w.:-]+)"?/i.exec(contentType)?.[1]), json: isJsonType(contentType) };
    if (readings.size >= REMEMBERED_TYPES) readings.clear();
    readings.set(contentType, reading);
  }
  return reading;
}

function decoderFor(charset: string | undefined): TextDecoder {
  if (charset === undefined) return UTF8;
  let decoder = decoders.get(charset);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(charset);
    } catch {
      decoder = UTF8;
    }
    // Labels are few (utf-8, iso-8859-1, ...); an app inventing new ones falls back to a fresh decoder, not a bigger map.
    if (decoders.size < REMEMBERED_TYPES) decoders.set(charset, decoder);
  }
  return decoder;
}
