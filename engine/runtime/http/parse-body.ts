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
  const { text, utf8 } = decode(bytes, contentType);
  if (!isJsonType(contentType)) return { body: text };
  try {
    return utf8 ? { body: JSON.parse(text) as JsonValue, jsonText: text, jsonUtf8: true } : { body: JSON.parse(text) as JsonValue, jsonText: text };
  } catch {
    return { body: text, invalidJson: true };
  }
}

function decode(bytes: Buffer, contentType: string | undefined): { text: string; utf8: boolean } {
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1];
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return { text: decoder.decode(view), utf8: decoder.encoding === 'utf-8' };
}
