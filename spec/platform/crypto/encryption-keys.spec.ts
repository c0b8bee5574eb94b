import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { resolveEncryptionKeys } from '../../../engine/platform/crypto/encryption-keys.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

describe('the encryption key on the embedded default', () => {
  it('is generated once into DATA_DIR/encryption.key with mode 0600, then reused', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const first = await resolveEncryptionKeys({ dataDir: dir, encryptionKeys: undefined });
      expect(first).to.have.length(1);
      expect(Buffer.from(first[0]!, 'base64')).to.have.length(32);
      const stat = await fs.stat(path.join(dir, 'encryption.key'));
      expect(stat.mode & 0o777).to.equal(0o600);
      expect(await resolveEncryptionKeys({ dataDir: dir, encryptionKeys: undefined })).to.deep.equal(first);
    } finally {
      await cleanup();
    }
  });

  it('is not generated when ENCRYPTION_KEY is given', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const given = [randomBytes(32).toString('base64')];
      expect(await resolveEncryptionKeys({ dataDir: dir, encryptionKeys: given })).to.deep.equal(given);
      expect(await fs.readdir(dir)).to.deep.equal([]);
    } finally {
      await cleanup();
    }
  });

  it('names the file when its content is malformed', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await fs.writeFile(path.join(dir, 'encryption.key'), 'garbage');
      const error = await resolveEncryptionKeys({ dataDir: dir, encryptionKeys: undefined }).catch((e: Error) => e);
      expect((error as Error).message).to.equal(`ENCRYPTION_KEY (from ${path.join(dir, 'encryption.key')}) must be 32 bytes encoded as base64 (44 characters; e.g. \`openssl rand -base64 32\`)`);
    } finally {
      await cleanup();
    }
  });
});
