import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';

/**
 * The layout of a pack file of the analysis cache (analysis-cache.ts). It is
 * part of the engine key, and a pack names it in its first bytes.
 */
export const ANALYSIS_FORMAT = 2;

/** This folder: engine/core/definitions under tsx, dist/engine/core/definitions compiled. */
const DEFINITIONS_CODE_DIR = path.dirname(fileURLToPath(import.meta.url));

let memo: string | null = null;

/**
 * The version of the engine as far as analysing a definition file goes: a
 * cached analysis is used only by an engine with the same key. Computed once
 * per process (a few milliseconds) by engineKeyOf from the running code.
 */
export function engineKey(): string {
  return (memo ??= engineKeyOf(DEFINITIONS_CODE_DIR, PACKAGE_ROOT));
}

/**
 * sha256 of everything an analysis (FileSummary) depends on, so that no
 * change of the engine can be served a summary made by another:
 *
 * - ANALYSIS_FORMAT and Node's version (a pack JSON cannot hold is in
 *   v8.serialize's format; the parsers run on its regular expressions);
 * - package.json (the gateway's version) and package-lock.json (the exact
 *   versions of js-yaml, yaml and ajv the analysis runs);
 * - schemas/*.json (what a file is validated against);
 * - every file of the running definitions code, recursively (the YAML
 *   guards, the copied JSONata parser, the problem messages...): whichever
 *   form runs, .ts under tsx or .js compiled.
 *
 * Hashing the code rather than trusting a constant someone must remember to
 * bump means a change to the analysis can never be served an old summary;
 * the price is that any edit to this folder (a comment included) makes the
 * next start analyse every file once.
 */
export function engineKeyOf(codeDir: string, packageRoot: string): string {
  const hash = createHash('sha256');
  hash.update(`format ${ANALYSIS_FORMAT}\0node ${process.version}\0`);
  const add = (name: string, file: string) => {
    hash.update(`${name}\0`);
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  };
  for (const name of ['package.json', 'package-lock.json']) {
    const file = path.join(packageRoot, name);
    if (fs.existsSync(file)) add(name, file);
  }
  const schemas = path.join(packageRoot, 'schemas');
  for (const name of fs.readdirSync(schemas).filter((n) => n.endsWith('.json')).sort()) add(`schemas/${name}`, path.join(schemas, name));
  for (const name of filesUnder(codeDir)) add(`code/${name}`, path.join(codeDir, name));
  return hash.digest('hex');
}

/** Every file under `dir`, relative, forward slashes, sorted. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join((entry as { parentPath?: string }).parentPath ?? entry.path, entry.name)).split(path.sep).join('/'))
    .sort();
}
