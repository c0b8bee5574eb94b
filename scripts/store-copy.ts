import { createKeyring } from '../engine/platform/crypto/keyring.ts';
import { configuredEncryptionKeys } from '../engine/platform/crypto/encryption-keys.ts';
import type { Config } from '../engine/config/config.ts';
import { acquireDataDirLock } from '../engine/platform/store/embedded/data-dir-lock.ts';
import { copyStore } from '../engine/platform/store/copy-store.ts';
import { openStore } from '../engine/platform/store/index.ts';
import { COLLECTION_NAMES } from '../engine/platform/store/port.ts';
import { redactedDatabaseUrl } from '../engine/platform/store/store-settings.ts';

export const STORE_COPY_HELP = `store:copy-to-postgres
  Copies the whole embedded store of DATA_DIR into the PostgreSQL database DATABASE_URL (or DATABASE_URL_FILE) names,
  for a team moving from one machine to a fleet. The gateway on DATA_DIR must be stopped; the target must hold no
  records yet (its schema is created if it has none). Every record is copied as it is, in one transaction: ids, key
  hashes, sealed credentials. ENCRYPTION_KEY must hold the key DATA_DIR's credentials are sealed with (the content
  of DATA_DIR/encryption.key when the gateway generated one), or the fleet could not open them.

  DATA_DIR=./data DATABASE_URL=postgres://user:password@db:5432/gateway ENCRYPTION_KEY=<key> npm run admin -- store:copy-to-postgres`;

/** `npm run admin -- store:copy-to-postgres`: the embedded store of DATA_DIR into DATABASE_URL's database. Answers the exit code. */
export async function copyEmbeddedToPostgres(config: Config, print: (exitCode: number, text: string) => void): Promise<number> {
  if (!config.databaseUrl) {
    print(2, 'store:copy-to-postgres: set DATABASE_URL (or DATABASE_URL_FILE) to the PostgreSQL database to copy into');
    return 2;
  }
  const embeddedKeys = await configuredEncryptionKeys({ encryptionKeys: undefined, dataDir: config.dataDir });
  const targetIds = new Set(createKeyring(config.encryptionKeys ?? []).byId.keys());
  const missing = embeddedKeys.length ? [...createKeyring(embeddedKeys).byId.keys()].filter((id) => !targetIds.has(id)) : [];
  if (missing.length) {
    print(1, `store:copy-to-postgres: ENCRYPTION_KEY does not hold the key of ${config.dataDir}/encryption.key (key id ${missing.join(', ')}): the copied credentials could not be opened. Put that key in ENCRYPTION_KEY (first, or after a newer one)`);
    return 1;
  }
  const release = await acquireDataDirLock(config.dataDir);
  try {
    const from = await openStore({ ...config, databaseUrl: undefined, mongodbUri: undefined });
    try {
      const to = await openStore({ ...config, mongodbUri: undefined });
      try {
        const existing = (await Promise.all(COLLECTION_NAMES.map((name) => to[name].count({})))).reduce((a, b) => a + b, 0);
        if (existing > 0) {
          print(1, `store:copy-to-postgres: ${redactedDatabaseUrl(config.databaseUrl)} already holds ${existing} records; copy into an empty database`);
          return 1;
        }
        const counts = await copyStore(from, to);
        print(0, JSON.stringify({ copied: counts, from: config.dataDir, to: redactedDatabaseUrl(config.databaseUrl) }, null, 2));
        return 0;
      } finally {
        await to.close();
      }
    } finally {
      await from.close();
    }
  } finally {
    await release();
  }
}
