import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPgliteTemplate } from '../../engine/platform/store/sql/open-pglite.ts';
import { pgliteVersion } from '../../engine/platform/store/sql/pglite-create.ts';

/**
 * A PGlite data directory of the current schema, made once and kept in the
 * OS temp folder under a name that changes with PGlite's version and the
 * migrations' text, and handed to every gateway the specs start
 * (PGLITE_TEMPLATE_DIR): creating one (initdb) takes 5 to 20 s, copying it
 * well under one.
 */
export async function pgliteTemplateDir(): Promise<string> {
  const root = path.resolve(import.meta.dirname, '../..');
  const migrations = path.join(root, 'engine/platform/store/sql/migrations');
  const hash = createHash('sha256');
  hash.update(pgliteVersion());
  for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(path.join(migrations, file)));
  const dir = path.join(os.tmpdir(), `igw-pglite-template-${hash.digest('hex').slice(0, 16)}`);
  await createPgliteTemplate(dir);
  return dir;
}
