import { hkdfSync } from 'node:crypto';
import type { Keyring } from './keyring.ts';

/**
 * A key for one purpose (signing OAuth state, say), derived from each
 * encryption key with HKDF-SHA256, so no further secret has to be configured
 * and rotating ENCRYPTION_KEY rotates it too. Newest first, like the keyring.
 */
export function derivedKeys(keyring: Keyring, purpose: string): { kid: string; key: Uint8Array }[] {
  const all = [keyring.current, ...[...keyring.byId.values()].filter((k) => k !== keyring.current)];
  return all.map((k) => ({ kid: k.id, key: new Uint8Array(hkdfSync('sha256', k.key, new Uint8Array(0), `integration-gateway:${purpose}`, 32)) }));
}
