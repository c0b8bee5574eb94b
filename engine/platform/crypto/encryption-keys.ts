import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, optional, type Env } from '../settings/env.ts';

/** Where the keys come from: ENCRYPTION_KEY as given, else a file in DATA_DIR. */
export interface EncryptionKeySettings {
  /** Base64 keys as given; the first one encrypts, every one decrypts. */
  encryptionKeys: string[] | undefined;
  dataDir: string;
}

export const ENCRYPTION_KEY_FILE = 'encryption.key';

/**
 * The keys that encrypt credentials at rest, newest first. ENCRYPTION_KEY
 * wins; on the embedded default without it, a key is generated once into
 * DATA_DIR/encryption.key (mode 0600) and read from there on later starts.
 */
export async function resolveEncryptionKeys(config: EncryptionKeySettings): Promise<string[]> {
  if (config.encryptionKeys) return config.encryptionKeys;
  const file = path.join(config.dataDir, ENCRYPTION_KEY_FILE);
  let content: string;
  try {
    content = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    content = randomBytes(32).toString('base64');
    await fs.writeFile(file, content + '\n', { mode: 0o600, flag: 'wx' });
  }
  try {
    return parseEncryptionKeys(content.trim())!;
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError('ENCRYPTION_KEY', `(from ${file}) ${error.message.replace(/^ENCRYPTION_KEY /, '')}`);
    throw error;
  }
}

/**
 * The keys as the admin tool sees them, to compare with a running gateway's:
 * ENCRYPTION_KEY, or DATA_DIR/encryption.key when it exists. Unlike
 * resolveEncryptionKeys it never generates a key; none configured is [].
 */
export async function configuredEncryptionKeys(config: EncryptionKeySettings): Promise<string[]> {
  if (config.encryptionKeys) return config.encryptionKeys;
  try {
    await fs.access(path.join(config.dataDir, ENCRYPTION_KEY_FILE));
  } catch {
    return [];
  }
  return await resolveEncryptionKeys(config);
}

/** `ENCRYPTION_KEY`: one or more comma-separated base64 keys of 32 bytes, newest first. */
export function parseEncryptionKeys(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const keys = value.split(',').map((k) => k.trim());
  keys.forEach((key, i) => {
    const where = keys.length > 1 ? `key ${i + 1} of ${keys.length} ` : '';
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length !== 32) {
      throw new ConfigError('ENCRYPTION_KEY', `${where}must be 32 bytes encoded as base64 (44 characters; e.g. \`openssl rand -base64 32\`)`);
    }
  });
  return keys;
}

export function encryptionKeysFromEnv(env: Env): string[] | undefined {
  return parseEncryptionKeys(optional(env, 'ENCRYPTION_KEY'));
}
