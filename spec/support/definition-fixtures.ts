import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/definitions');
/** The one valid definitions folder every invalid case and mutation starts from. */
export const VALID = path.join(FIXTURES, 'valid');
export const INVALID = path.join(FIXTURES, 'invalid');

/** A fresh temporary folder, removed by the returned function. */
export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

/**
 * An invalid case is the valid folder with the case's `files/` laid over it
 * (same path replaces, new path adds): each case shows only what it breaks.
 */
export async function materialiseCase(caseDir: string, into: string): Promise<void> {
  await fs.cp(VALID, into, { recursive: true });
  await fs.cp(path.join(caseDir, 'files'), into, { recursive: true, force: true });
}

export async function copyValid(into: string): Promise<void> {
  await fs.cp(VALID, into, { recursive: true });
}
