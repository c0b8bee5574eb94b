import fs from 'node:fs/promises';
import path from 'node:path';
import { DefinitionsLoader } from '../core/definitions/loader.ts';
import type { DefinitionProblem } from '../core/definitions/problems.ts';
import type { AppEntry, AppVersion } from '../core/definitions/snapshot.ts';
import { readSourceFiles, sourceFile, isDefinitionPath } from '../core/definitions/source-files.ts';
import { revisionFiles, SideNotFound } from './definitions-side.ts';

/**
 * One side of `npm run diff -- <folder>/<app>@<version> ...`: one version of
 * one app, from a folder (`definitions/github@1`) or a git revision
 * (`main:definitions/github@1`). `<version>` is a number, `draft` or
 * `published` (the version the side's app.yaml publishes).
 */
export type LoadedAppVersion =
  | { ok: true; label: string; app: AppEntry; version: AppVersion }
  | { ok: false; label: string; problems: DefinitionProblem[]; displayFile: (file: string) => string };

const SIDE = /^(.+)@([^@/:{}]*)$/;
const VERSION = /^([1-9][0-9]*|draft|published)$/;

/**
 * Whether `spec` names one version of an app (`<folder>/<app>@<version>`,
 * `<rev>:<folder>/<app>@<version>`) rather than a whole tree. A folder that
 * exists under that very name stays a folder.
 */
export async function isAppVersionSpec(spec: string, cwd: string): Promise<boolean> {
  if (!SIDE.test(spec)) return false;
  return !(await fs.stat(path.resolve(cwd, spec)).catch(() => null))?.isDirectory();
}

/**
 * Loads the app folder alone (its files only, so other apps of the tree do
 * not matter) with the gateway's loader, then picks the version. An unknown
 * app or version, or a bad version name, throws SideNotFound naming what
 * there is.
 */
export async function loadAppVersion(spec: string, cwd: string): Promise<LoadedAppVersion> {
  const [, where, wanted] = SIDE.exec(spec)!;
  if (!VERSION.test(wanted!)) throw new SideNotFound(`${spec}: a version is a number, draft or published`);
  const colon = where!.indexOf(':');
  const fromGit = colon > 0 && !(await fs.stat(path.resolve(cwd, where!)).catch(() => null))?.isDirectory();
  const loaded = fromGit ? await fromRevision(spec, where!.slice(0, colon), where!.slice(colon + 1), cwd) : await fromFolder(spec, where!, cwd);
  if (!loaded.ok) return loaded;
  const { app } = loaded;
  const version = wanted === 'published' ? (app.published === undefined ? undefined : app.versions.get(app.published)) : wanted === 'draft' ? app.draft : app.versions.get(Number(wanted));
  if (!version) {
    const there = [...[...app.versions.keys()].sort((a, b) => a - b).map(String), ...(app.draft ? ['draft'] : [])];
    const what = wanted === 'published' ? 'published version' : `version ${wanted}`;
    throw new SideNotFound(`${spec}: ${app.id} has no ${what} (it has ${there.join(', ') || 'none'})`);
  }
  return { ok: true, label: spec, app, version };
}

type LoadedApp = { ok: true; app: AppEntry } | Extract<LoadedAppVersion, { ok: false }>;

async function fromFolder(spec: string, where: string, cwd: string): Promise<LoadedApp> {
  const appDir = path.resolve(cwd, where);
  const tree = path.dirname(appDir);
  const name = path.basename(appDir);
  if (!(await fs.stat(appDir).catch(() => null))?.isDirectory()) {
    throw new SideNotFound(`${spec}: no app folder ${where} (apps there: ${(await appsIn(tree)).join(', ') || 'none'})`);
  }
  const read = await readSourceFiles(appDir);
  const inTree = (file: string) => `${name}/${file}`;
  // Read from inside the app folder, the files' places in a tree are only known once prefixed (actions' test cases are not definitions).
  const files = read.files.filter((f) => isDefinitionPath(inTree(f.file))).map((f) => sourceFile(inTree(f.file), f.text));
  const problems = read.problems.map((p) => ({ ...p, file: inTree(p.file) }));
  return loadApp(spec, files, problems, (file) => path.relative(cwd, path.join(tree, file)));
}

async function fromRevision(spec: string, revision: string, where: string, cwd: string): Promise<LoadedApp> {
  const name = path.basename(where);
  const read = await revisionFiles(revision, where, cwd);
  if (!read) throw new SideNotFound(`${spec}: ${revision} is not a git revision`);
  if (!read.files.length) throw new SideNotFound(`${spec}: no app folder ${where} in ${revision}`);
  const files = read.files.filter((f) => isDefinitionPath(`${name}/${f.file}`)).map((f) => sourceFile(`${name}/${f.file}`, f.text));
  const parent = path.posix.dirname(read.prefix);
  const problems = read.problems.filter((p) => isDefinitionPath(`${name}/${p.file}`)).map((p) => ({ ...p, file: `${name}/${p.file}` }));
  return loadApp(spec, files, problems, (file) => `${revision}:${parent === '.' ? file : path.posix.join(parent, file)}`);
}

function loadApp(spec: string, files: ReturnType<typeof sourceFile>[], readProblems: DefinitionProblem[], displayFile: (file: string) => string): LoadedApp {
  // One thread: a single app is small.
  const result = new DefinitionsLoader(undefined, 1).load(files, readProblems);
  if (!result.ok) return { ok: false, label: spec, problems: result.problems, displayFile };
  const app = [...result.snapshot.apps.values()][0];
  if (!app) throw new SideNotFound(`${spec}: no app there (no app.yaml)`);
  return { ok: true, app };
}

/** The app folders (with an app.yaml) of a tree, for a message. */
async function appsIn(tree: string): Promise<string[]> {
  const entries = await fs.readdir(tree, { withFileTypes: true }).catch(() => []);
  const apps: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.name.startsWith('.') && (await fs.stat(path.join(tree, entry.name, 'app.yaml')).catch(() => null))) apps.push(entry.name);
  }
  return apps.sort();
}
