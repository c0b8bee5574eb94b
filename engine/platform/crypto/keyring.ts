import { createHash } from 'node:crypto';

/** An AES-256 key and the short id stored beside everything it encrypts. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** The configured keys, newest first: the first encrypts, every one decrypts. */
export interface Keyring {
  current: EncryptionKey;
  byId: ReadonlyMap<string, EncryptionKey>;
}

/** Key ids are derived from the key (first 8 bytes of its SHA-256), so no id has to be configured. */
export function createKeyring(base64Keys: string[]): Keyring {
  if (base64Keys.length === 0) throw new Error('a keyring needs at least one key');
  const keys = base64Keys.map((b64) => {
    const key = Buffer.from(b64, 'base64');
    return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
  });
  return { current: keys[0]!, byId: new Map(keys.map((k) => [k.id, k])) };
}
