import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, parseEncryptionKeys, type Config } from '../../config/config.ts';

export const ENCRYPTION_KEY_FILE = 'encryption.key';

/**
 * The keys that encrypt credentials at rest, newest first. ENCRYPTION_KEY
 * wins; on the embedded default without it, a key is generated once into
 * DATA_DIR/encryption.key (mode 0600) and read from there on later starts.
 */
export async function resolveEncryptionKeys(config: Pick<Config, 'encryptionKeys' | 'dataDir'>): Promise<string[]> {
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
export async function configuredEncryptionKeys(config: Pick<Config, 'encryptionKeys' | 'dataDir'>): Promise<string[]> {
  if (config.encryptionKeys) return config.encryptionKeys;
  try {
    await fs.access(path.join(config.dataDir, ENCRYPTION_KEY_FILE));
  } catch {
    return [];
  }
  return await resolveEncryptionKeys(config);
}
