import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The gateway's package folder (package.json, schemas/, definitions/): the
 * nearest folder above this file holding a package.json. Found rather than
 * counted in `../`, because this file runs from engine/ under tsx and from
 * dist/engine/ compiled, one folder deeper.
 */
export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
