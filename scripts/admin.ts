/**
 * The admin tool: `npm run admin -- <command> [options]`; `--help` lists the
 * commands, `<command> --help` shows one's options (engine/admin/commands.ts). Works with the
 * gateway stopped (opens the store itself) or running on the embedded store
 * (asks the gateway over DATA_DIR/admin.sock). With DATABASE_URL or
 * MONGODB_URI it always talks to that database directly.
 * `store:copy-to-postgres` copies the embedded store into DATABASE_URL's
 * database (scripts/store-copy.ts).
 */
import { sendAdminCommand } from '../engine/admin/admin-socket.ts';
import { parseAdminCommand, runAdminCommand } from '../engine/admin/commands.ts';
import { configuredEncryptionKeys, resolveEncryptionKeys } from '../engine/platform/crypto/encryption-keys.ts';
import { createKeyring } from '../engine/platform/crypto/keyring.ts';
import { ConfigError, loadConfig } from '../engine/config/config.ts';
import { readDotEnv } from '../engine/config/dot-env.ts';
import { readSecretFiles } from '../engine/config/secret-files.ts';
import { lockHolder } from '../engine/platform/store/embedded/data-dir-lock.ts';
import { acquireDataDirLock } from '../engine/platform/store/embedded/data-dir-lock.ts';
import { openStore } from '../engine/platform/store/index.ts';
import { copyEmbeddedToPostgres, STORE_COPY_HELP } from './store-copy.ts';

async function main(argv: string[]): Promise<number> {
  // Copying a whole store takes two stores: the tool does it itself, with the gateway stopped.
  if (argv[0] === 'store:copy-to-postgres') {
    if (argv.includes('--help')) {
      print({ exitCode: 0, output: STORE_COPY_HELP });
      return 0;
    }
    readDotEnv();
    return await copyEmbeddedToPostgres(loadConfig(readSecretFiles(process.env)), (exitCode, output) => print({ exitCode, output }));
  }
  // Help and a mistyped command line are answered here, without the configuration, the store or the gateway.
  const early = parseAdminCommand(argv);
  if ('exitCode' in early) {
    print(early);
    return early.exitCode;
  }
  // The same environment as the gateway's: .env in development, secrets given as files.
  readDotEnv();
  const config = loadConfig(readSecretFiles(process.env));
  if (!config.mongodbUri && !config.databaseUrl && (await lockHolder(config.dataDir)) !== null) {
    // The gateway carries the command out with its own keys; it refuses a key-using one when the tool's differ.
    const keys = await configuredEncryptionKeys(config);
    const keyIds = keys.length ? [...createKeyring(keys).byId.keys()] : [];
    const result = await sendAdminCommand(config.dataDir, argv, keyIds);
    print(result);
    return result.exitCode;
  }
  const release = config.mongodbUri || config.databaseUrl ? async () => {} : await acquireDataDirLock(config.dataDir);
  const keyring = createKeyring(await resolveEncryptionKeys(config));
  const store = await openStore(config);
  try {
    const result = await runAdminCommand({ store, keyring }, argv);
    print(result);
    return result.exitCode;
  } finally {
    await store.close();
    await release();
  }
}

function print(result: { exitCode: number; output: string }): void {
  (result.exitCode === 0 ? process.stdout : process.stderr).write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(error instanceof ConfigError ? `config error: ${error.message}\n` : `admin failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
