import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../platform/log/logger.ts';

/** Where a generated owner key goes when no person is at a terminal to read it. */
export const BOOTSTRAP_KEY_FILE = 'bootstrap-api-key';

export interface KeyDestination {
  /** The gateway's port, for the curl line. */
  port: number;
  dataDir: string;
  /** process.stderr in the gateway: the key is shown there only when it is a terminal. */
  terminal: { isTTY?: boolean; write(text: string): unknown };
  logger: Logger;
}

/**
 * Hands the generated owner key to its reader once, never through the log
 * stream (stdout, JSON lines a container ships to log aggregation): on a
 * terminal (stderr is a TTY) it is shown there with a curl line; otherwise it
 * is written to DATA_DIR/bootstrap-api-key with mode 0600 and only the
 * file's path is logged.
 */
export async function deliverBootstrapKey(key: string, to: KeyDestination): Promise<void> {
  if (to.terminal.isTTY) {
    to.terminal.write(
      [
        '',
        'Created company "Default" with an owner and this API key (shown once; only its hash is stored):',
        '',
        `  ${key}`,
        '',
        'Try it:',
        `  curl -H "Authorization: Bearer ${key}" http://localhost:${to.port}/v1/users`,
        '',
        `API docs: http://localhost:${to.port}/docs`,
        '',
      ].join('\n') + '\n',
    );
    to.logger.info('created company "Default" with an owner; its generated API key was shown on the terminal once');
    return;
  }
  await fs.mkdir(to.dataDir, { recursive: true, mode: 0o700 });
  const file = path.resolve(to.dataDir, BOOTSTRAP_KEY_FILE);
  // A file left by an earlier, unfinished start holds a key that has been revoked since: replace it.
  await fs.rm(file, { force: true });
  await fs.writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  to.logger.info({ file }, `created company "Default" with an owner; its generated API key was written to ${file} (mode 0600, shown nowhere else): read it, then delete the file`);
}
