import fs from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { SCHEMAS_DIR } from '../core/definitions/schema-validation.ts';
import { readDefinitionFile } from '../core/definitions/source-files.ts';
import { nameFromSlug, scaffoldFiles, slugProblem } from './app-scaffold.ts';

/** This repository's definitions/, the apps bundled with the gateway. */
export const BUNDLED_DEFINITIONS = path.join(path.dirname(SCHEMAS_DIR), 'definitions');

export type CreateAppOutcome = { ok: true; folder: string; files: string[] } | { ok: false; reason: string };

/**
 * `npm run new-app`: writes a new app folder `<dir>/<slug>` from the
 * scaffold. Refuses an invalid slug, a folder that exists already (nothing is
 * overwritten), and an id or slug another app of `dir`, or of the bundled
 * definitions (`bundled`, default this repository's definitions/), already
 * uses: an app written elsewhere is meant to be served beside them.
 */
export async function createApp(dir: string, slug: string, given?: string, bundled: string = BUNDLED_DEFINITIONS): Promise<CreateAppOutcome> {
  const problem = slugProblem(slug);
  if (problem) return { ok: false, reason: problem };
  // Made from the slug once it is known to be one: an empty word (a--b) has no letter to capitalise.
  const name = given ?? nameFromSlug(slug);
  if (!name.trim()) return { ok: false, reason: 'the display name must not be empty' };
  const folder = path.join(dir, slug);
  if (await fs.lstat(folder).catch(() => null)) return { ok: false, reason: `${folder} already exists; choose another slug or remove it first` };
  const taken = await appUsing(dir, slug);
  if (taken) return { ok: false, reason: `${taken} already uses "${slug}" as its id or slug` };
  const takenBundled = path.resolve(bundled) === path.resolve(dir) ? null : await appUsing(bundled, slug);
  if (takenBundled) return { ok: false, reason: `${near(takenBundled)} (the bundled definitions) already uses "${slug}" as its id or slug` };

  const files = scaffoldFiles(slug, name, path.resolve(folder));
  const written = await writeScaffold(dir, folder, files);
  if (written !== true) return { ok: false, reason: `cannot write ${folder}: ${written}; nothing was written` };
  return { ok: true, folder, files: [...files.keys()].map((f) => path.join(folder, f)) };
}

/**
 * The scaffold's files under `folder`, or why not. The app folder itself is made without `recursive`: Node's
 * recursive mkdir never returned for a folder /proc refuses (--dir /proc/1), and a folder made here is ours to
 * remove again when a later write fails. A folder that appeared meanwhile is refused, never written into.
 */
async function writeScaffold(dir: string, folder: string, files: Map<string, string>): Promise<true | string> {
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.mkdir(folder);
  } catch (error) {
    return (error as Error).message;
  }
  try {
    for (const [file, text] of files) {
      const target = path.join(folder, file);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, text, { flag: 'wx' });
    }
    return true;
  } catch (error) {
    await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
    return (error as Error).message;
  }
}

/** A path relative to the current folder when it is inside it, else absolute. */
export function near(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? path.resolve(file) : relative;
}

/** The app.yaml of `dir` whose id or slug is `slug`, if any (unreadable files are validate's business). */
export async function appUsing(dir: string, slug: string): Promise<string | null> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const file = path.join(dir, entry.name, 'app.yaml');
    // Read as the loader reads it: a FIFO there (open waited for a writer for ever), a device or a file over 1 MB is skipped.
    const read = readDefinitionFile(dir, path.join(entry.name, 'app.yaml'));
    const value = read && 'text' in read ? parsedApp(read.text) : null;
    if (value && (value.id === slug || value.slug === slug)) return file;
  }
  return null;
}

/** The id and slug an app file gives, or null when it is not YAML (validate says why). */
function parsedApp(text: string): { id?: unknown; slug?: unknown } | null {
  try {
    return parse(text) as { id?: unknown; slug?: unknown } | null;
  } catch {
    return null;
  }
}
