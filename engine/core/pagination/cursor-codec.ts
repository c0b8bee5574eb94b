import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKeys } from '../../platform/crypto/derived-key.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';
import { ENGINE_CURSOR_MAX_CHARS } from '../arguments/build-request.ts';

/** Where the next page starts, for the kinds whose cursor the engine writes. */
export type PagePosition = { url: string } | { offset: number } | { page: number };

/** What a cursor belongs to: it is refused anywhere else. */
export interface CursorScope {
  appId: string;
  version: string | number;
  actionId: string;
  connectionId: string;
}

/** Longer cursors are refused before any work (buildOutboundRequest refuses them first): an engine cursor is a URL and a few ids. */
export const MAX_CURSOR_CHARS = ENGINE_CURSOR_MAX_CHARS;

const PURPOSE = 'pagination-cursor';

/** HKDF per key costs about ten HMACs: the keys are derived once per keyring (a keyring never changes; a new one is a new object). */
const keysOf = new WeakMap<Keyring, { key: Uint8Array }[]>();
function cursorKeys(keyring: Keyring): { key: Uint8Array }[] {
  let keys = keysOf.get(keyring);
  if (!keys) keysOf.set(keyring, (keys = derivedKeys(keyring, PURPOSE)));
  return keys;
}

/**
 * The opaque meta.cursor of NextUrl, Offset and Page pages:
 * base64url(JSON payload) "." base64url(HMAC-SHA256 of the payload text),
 * with a key derived from the encryption keyring (the newest key signs; any
 * key of the ring verifies, so rotating ENCRYPTION_KEY keeps cursors in
 * flight working).
 */
export function encodeCursor(keyring: Keyring, scope: CursorScope, position: PagePosition): string {
  const payload = Buffer.from(JSON.stringify({ ...position, a: scope.appId, v: String(scope.version), x: scope.actionId, c: scope.connectionId })).toString('base64url');
  return `${payload}.${sign(cursorKeys(keyring)[0]!.key, payload)}`;
}

/** The position a cursor stands for, or why it is refused (a reason for the log, never shown with the cursor). */
export function decodeCursor(keyring: Keyring, scope: CursorScope, cursor: string): { position: PagePosition } | { refused: string } {
  if (cursor.length > MAX_CURSOR_CHARS) return { refused: `longer than ${MAX_CURSOR_CHARS} characters` };
  const dot = cursor.indexOf('.');
  if (dot < 0 || cursor.indexOf('.', dot + 1) >= 0) return { refused: 'not a cursor of this gateway' };
  const payload = cursor.slice(0, dot);
  const signature = Buffer.from(cursor.slice(dot + 1), 'base64url');
  const signed = cursorKeys(keyring).some(({ key }) => {
    const expected = Buffer.from(sign(key, payload), 'base64url');
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  });
  if (!signed) return { refused: 'bad signature' };
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { refused: 'payload is not JSON' };
  }
  if (fields.a !== scope.appId || fields.v !== String(scope.version) || fields.x !== scope.actionId) return { refused: 'a cursor of another action' };
  if (fields.c !== scope.connectionId) return { refused: 'a cursor of another connection' };
  if (typeof fields.url === 'string') return { position: { url: fields.url } };
  if (Number.isSafeInteger(fields.offset)) return { position: { offset: fields.offset as number } };
  if (Number.isSafeInteger(fields.page)) return { position: { page: fields.page as number } };
  return { refused: 'no position' };
}

function sign(key: Uint8Array, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}
