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
export function parseBody(bytes: Buffer, contentType: string | undefined): { body: JsonValue | string | null; invalidJson?: true; jsonText?: string } {
  if (bytes.length === 0) return { body: null };
  const text = decode(bytes, contentType);
  if (!isJsonType(contentType)) return { body: text };
  try {
    return { body: JSON.parse(text) as JsonValue, jsonText: text };
  } catch {
    return { body: text, invalidJson: true };
  }
}

function decode(bytes: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1];
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(view);
  } catch {
    return new TextDecoder('utf-8').decode(view);
  }
}
