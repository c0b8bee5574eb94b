import fs from 'node:fs/promises';
import path from 'node:path';
import { DefinitionsLoader } from '../../core/definitions/loader.ts';
import type { DefinitionProblem } from '../../core/definitions/problems.ts';
import { isDefinitionPath, readSourceFiles, sourceFile } from '../../core/definitions/source-files.ts';
import { appUsing, near } from '../create-app.ts';
import { slugProblem } from '../app-scaffold.ts';
import { loadAppVersion } from '../app-version-side.ts';
import { diffAppVersions } from '../definition-diff.ts';
import { diffMarkdown, summarise, type DiffSummary } from '../diff-report.ts';
import { ImportError } from './import-error.ts';

/** Where an import writes: a new app folder, or a new version of an app that exists. */
export interface Target {
  mode: 'new' | 'reimport';
  /** `<dir>/<slug>`. */
  appFolder: string;
  /** `draft` or a number. */
  version: string;
  /** A re-import: the version the new one is compared with (the published one, else the highest). */
  compareWith: number | undefined;
}

/**
 * Where `npm run import -- ... --app <slug> [--version <n>]` writes, or
 * ImportError when it must not: a slug that is not kebab-case, one another
 * app of `dir` (or of the bundled definitions) uses, a folder that is not an
 * app, or a version that exists already (a published version's hand edits,
 * or a draft's, are never overwritten).
 */
export async function targetOf(dir: string, slug: string, version: number | undefined, bundled: string): Promise<Target> {
  const problem = slugProblem(slug);
  if (problem) throw new ImportError(problem);
  const appFolder = path.join(dir, slug);
  const label = version === undefined ? 'draft' : String(version);
  const existing = await fs.lstat(appFolder).catch(() => null);
  if (existing) {
    const appFile = path.join(appFolder, 'app.yaml');
    if (!existing.isDirectory() || !(await fs.stat(appFile).catch(() => null))) throw new ImportError(`${near(appFolder)} exists and is not an app folder (no app.yaml); choose another slug or remove it`);
    const owner = await appUsing(dir, slug);
    if (owner && path.resolve(owner) !== path.resolve(appFile)) throw new ImportError(`${near(owner)} already uses "${slug}" as its id or slug`);
    const versionFolder = path.join(appFolder, 'versions', label);
    if (await fs.lstat(versionFolder).catch(() => null)) {
      throw new ImportError(`${near(versionFolder)} exists: a re-import writes a new version and never overwrites one (hand edits would be lost); remove it, or give --version <n> for a new numbered version`);
    }
    return { mode: 'reimport', appFolder, version: label, compareWith: await comparedVersion(appFolder) };
  }
  const taken = await appUsing(dir, slug);
  if (taken) throw new ImportError(`${near(taken)} already uses "${slug}" as its id or slug`);
  const takenBundled = path.resolve(bundled) === path.resolve(dir) ? null : await appUsing(bundled, slug);
  if (takenBundled) throw new ImportError(`${near(takenBundled)} (the bundled definitions) already uses "${slug}" as its id or slug`);
  return { mode: 'new', appFolder, version: label, compareWith: undefined };
}

/** The published version of an existing app, else its highest numbered one. */
async function comparedVersion(appFolder: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(appFolder, 'app.yaml'), 'utf8').catch(() => '');
  const published = /^published:\s*(\d+)\s*$/m.exec(text);
  if (published) return Number(published[1]);
  const names = await fs.readdir(path.join(appFolder, 'versions')).catch(() => [] as string[]);
  const numbers = names.filter((n) => /^[1-9]\d*$/.test(n)).map(Number);
  return numbers.length ? Math.max(...numbers) : undefined;
}

/**
 * The problems the gateway's loader finds in the app as it would be once
 * written (for a re-import, with the app's other versions), before anything
 * is: an import never leaves a folder that does not load.
 */
export async function problemsOf(target: Target, files: Map<string, string>): Promise<DefinitionProblem[]> {
  const name = path.basename(target.appFolder);
  const sources = [...files].map(([file, text]) => sourceFile(`${name}/${file}`, text)).filter((f) => isDefinitionPath(f.file));
  if (target.mode === 'reimport') {
    const existing = await readSourceFiles(target.appFolder);
    sources.push(...existing.files.map((f) => sourceFile(`${name}/${f.file}`, f.text)).filter((f) => isDefinitionPath(f.file)));
  }
  const result = new DefinitionsLoader(undefined, 1).load(sources);
  return result.ok ? [] : result.problems;
}

/**
 * Writes the files into a temporary folder beside the target and renames it
 * into place: the app folder (new app) or the version folder (re-import)
 * appears whole or not at all. Returns the paths written.
 */
export async function writeTarget(target: Target, files: Map<string, string>): Promise<string[]> {
  const dir = path.dirname(target.appFolder);
  await fs.mkdir(dir, { recursive: true });
  // Hidden: the loader and a watching gateway skip it while it is written.
  const temp = await fs.mkdtemp(path.join(dir, `.import-${path.basename(target.appFolder)}-`));
  try {
    for (const [file, text] of files) {
      const at = path.join(temp, file);
      await fs.mkdir(path.dirname(at), { recursive: true });
      await fs.writeFile(at, text, { flag: 'wx' });
    }
    if (target.mode === 'new') {
      if (await fs.lstat(target.appFolder).catch(() => null)) throw new ImportError(`${near(target.appFolder)} appeared while the import ran; nothing written`);
      await fs.rename(temp, target.appFolder);
    } else {
      const versionFolder = path.join(target.appFolder, 'versions', target.version);
      if (await fs.lstat(versionFolder).catch(() => null)) throw new ImportError(`${near(versionFolder)} appeared while the import ran; nothing written`);
      await fs.mkdir(path.dirname(versionFolder), { recursive: true });
      await fs.rename(path.join(temp, 'versions', target.version), versionFolder);
    }
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
  return [...files.keys()].map((file) => path.join(target.appFolder, file));
}

/**
 * A re-import's review: `npm run diff` of the version written against the
 * one it is compared with, and the command that shows it again.
 */
export async function reimportDiff(target: Target, cwd: string): Promise<{ markdown: string; command: string; summary: DiffSummary } | undefined> {
  if (target.mode !== 'reimport' || target.compareWith === undefined) return undefined;
  const shown = path.relative(cwd, target.appFolder) || '.';
  const [base, head] = [`${shown}@${target.compareWith}`, `${shown}@${target.version}`];
  const was = await loadAppVersion(base, cwd);
  const now = await loadAppVersion(head, cwd);
  if (!was.ok || !now.ok) return undefined;
  const changes = diffAppVersions(was, now);
  return { markdown: diffMarkdown(base, head, changes), command: `npm run diff -- ${base} ${head}`, summary: summarise(changes) };
}
