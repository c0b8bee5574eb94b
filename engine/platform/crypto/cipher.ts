import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { GatewayError } from '../errors/index.ts';
import type { Keyring } from './keyring.ts';

/**
 * How a secret is kept at rest: AES-256-GCM, a fresh 96-bit nonce per
 * encryption, the key's id, and the record it belongs to bound in as
 * additional data, so a ciphertext copied onto another record fails to open.
 */
export interface SealedSecret {
  v: 1;
  kid: string;
  iv: string;
  tag: string;
  data: string;
}

/** A sealed secret that cannot be opened: an error naming the record, answered as CREDENTIALS_UNREADABLE, never a crash. */
export class SecretUnreadableError extends GatewayError {
  constructor(readonly recordId: string, reason: string) {
    super('CREDENTIALS_UNREADABLE', 500, `the stored credentials of ${recordId} cannot be decrypted: ${reason}`);
    this.name = 'SecretUnreadableError';
  }
}

export function seal(keyring: Keyring, recordId: string, secret: unknown): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv);
  cipher.setAAD(Buffer.from(recordId, 'utf8'));
  const data = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
  return { v: 1, kid: keyring.current.id, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

export function open<T = unknown>(keyring: Keyring, recordId: string, sealed: SealedSecret): T {
  if (!sealed || sealed.v !== 1) throw new SecretUnreadableError(recordId, 'unknown format');
  const key = keyring.byId.get(sealed.kid);
  if (!key) throw new SecretUnreadableError(recordId, `encrypted with key ${sealed.kid}, which is not among the configured ENCRYPTION_KEY values`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(recordId, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  } catch {
    throw new SecretUnreadableError(recordId, `authentication failed with key ${sealed.kid} (altered data, or a different key under the same id)`);
  }
}

/** True when the secret is not under the newest key and should be re-encrypted. */
export function needsRotation(keyring: Keyring, sealed: SealedSecret): boolean {
  return sealed.kid !== keyring.current.id;
}
