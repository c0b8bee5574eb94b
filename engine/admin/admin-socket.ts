import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { Logger } from '../platform/log/logger.ts';
import { COMMANDS, runAdminCommand, type AdminContext, type AdminResult } from './commands.ts';
import { keyMismatch } from './key-agreement.ts';

export const ADMIN_SOCKET = 'admin.sock';

/**
 * While the gateway runs on the embedded store, it alone may touch the store
 * files; the admin tool then sends its command over this Unix socket (mode
 * 0600, inside DATA_DIR) and the gateway runs it on its own store.
 */
export async function serveAdminSocket(dataDir: string, context: AdminContext, logger: Logger): Promise<() => Promise<void>> {
  const socketPath = path.join(dataDir, ADMIN_SOCKET);
  await fs.rm(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        let result: AdminResult;
        try {
          const { argv, keyIds } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { argv: string[]; keyIds?: string[] };
          const mismatch = COMMANDS[argv[0] ?? '']?.usesEncryptionKeys ? keyMismatch(context.keyring, keyIds) : null;
          result = mismatch ? { exitCode: 1, output: mismatch } : await runAdminCommand(context, argv);
          logger.info({ command: argv[0] }, 'admin command');
        } catch (error) {
          logger.error({ err: error }, 'admin command failed');
          result = { exitCode: 1, output: 'error: the admin command failed; see the gateway log' };
        }
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(result));
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await fs.chmod(socketPath, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fs.rm(socketPath, { force: true });
  };
}

/** How long the tool waits for a gateway that holds DATA_DIR to open its socket (it opens it once its store is open). */
export const ADMIN_SOCKET_WAIT_MS = 10_000;

/**
 * `keyIds`: the ids of the tool's own ENCRYPTION_KEY values, newest first, compared with the gateway's for commands
 * that use them. A gateway that holds DATA_DIR but has no socket yet (it is starting: the lock is taken first) is
 * waited for, up to `waitMs`; then the error says what was not there.
 */
export async function sendAdminCommand(dataDir: string, argv: string[], keyIds: string[] = [], waitMs = ADMIN_SOCKET_WAIT_MS): Promise<AdminResult> {
  const socketPath = path.join(dataDir, ADMIN_SOCKET);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await askOnce(socketPath, argv, keyIds);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ECONNREFUSED') throw error;
      if (Date.now() >= deadline) {
        throw new Error(`the gateway holding DATA_DIR ${dataDir} did not open its admin socket (${socketPath}) within ${waitMs / 1000} s; is it still starting? Try again once it logs that it listens`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function askOnce(socketPath: string, argv: string[], keyIds: string[]): Promise<AdminResult> {
  return new Promise<AdminResult>((resolve, reject) => {
    const req = http.request({ socketPath, path: '/', method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on('data', (chunk: Uint8Array) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminResult);
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ argv, keyIds }));
  });
}
