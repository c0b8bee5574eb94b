import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadDefinitions } from '../core/definitions/loader.ts';
import { definitionText, MAX_DEFINITION_FILE_BYTES, tooLargeProblem } from '../core/definitions/source-files.ts';
import type { DefinitionProblem } from '../core/definitions/problems.ts';
import type { DefinitionsSnapshot } from '../core/definitions/snapshot.ts';

const run = promisify(execFile);

/** One side of a diff, loaded with the real loader. */
export type LoadedSide =
  | { ok: true; label: string; snapshot: DefinitionsSnapshot }
  | { ok: false; label: string; problems: DefinitionProblem[]; displayFile: (file: string) => string };

/**
 * Loads `spec`: a folder of definitions, or else a git revision (`main`,
 * `HEAD~1`, a commit) whose tree is read with `git ls-tree`/`git show` into a
 * temporary folder: no checkout, no network. `definitionsDir` names the
 * definitions folder inside the repository (relative to `cwd`).
 */
export async function loadSide(spec: string, options: { cwd: string; definitionsDir: string }): Promise<LoadedSide> {
  const asFolder = path.resolve(options.cwd, spec);
  if ((await fs.stat(asFolder).catch(() => null))?.isDirectory()) {
    const result = await loadDefinitions(asFolder);
    const display = (file: string) => path.relative(options.cwd, path.join(asFolder, file)) || '.';
    return result.ok ? { ok: true, label: spec, snapshot: result.snapshot } : { ok: false, label: spec, problems: result.problems, displayFile: display };
  }
  const extracted = await extractRevision(spec, options);
  try {
    const result = await loadDefinitions(extracted.dir);
    const display = (file: string) => `${spec}:${path.posix.join(extracted.prefix, file)}`;
    const problems = [...extracted.problems, ...(result.ok ? [] : result.problems)];
    return result.ok && !problems.length ? { ok: true, label: spec, snapshot: result.snapshot } : { ok: false, label: spec, problems, displayFile: display };
  } finally {
    await fs.rm(extracted.dir, { recursive: true, force: true });
  }
}

/** Thrown when `spec` is neither a folder nor a revision of the repository around `cwd`. */
export class SideNotFound extends Error {}

async function extractRevision(spec: string, options: { cwd: string; definitionsDir: string }): Promise<{ dir: string; prefix: string; problems: DefinitionProblem[] }> {
  const revision = await revisionFiles(spec, options.definitionsDir, options.cwd);
  if (!revision) throw new SideNotFound(`${spec} is neither a folder nor a git revision`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-diff-'));
  for (const { file, text } of revision.files) {
    const target = path.join(dir, file);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, text);
  }
  return { dir, prefix: revision.prefix, problems: revision.problems };
}

/**
 * The YAML files under `folder` (relative to `cwd`) in git revision `spec`,
 * by path inside that folder, with `prefix`, the folder's path in the
 * repository; null when `spec` is not a revision of the repository around
 * `cwd`. Read with `git ls-tree` and `git show`: no checkout, no network.
 */
export async function revisionFiles(spec: string, folder: string, cwd: string): Promise<{ prefix: string; files: { file: string; text: string }[]; problems: DefinitionProblem[] } | null> {
  const git = (...args: string[]) => run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
  let commit: string;
  let top: string;
  try {
    top = (await git('rev-parse', '--show-toplevel')).stdout.trim();
    commit = (await git('rev-parse', '--verify', '--quiet', `${spec}^{commit}`)).stdout.trim();
  } catch {
    return null;
  }
  // Real paths on both ends: git answers with the resolved top level (/tmp may be a link).
  const here = await fs.realpath(cwd);
  const prefix = path.relative(top, path.resolve(here, folder)).split(path.sep).join('/');
  // --long: each blob's size, so one larger than a definition file may be is never read (git show of a 70 MB blob
  // overflowed maxBuffer and died with a stack); its bytes are held to what the folder's reader holds them to.
  const listing = (await git('ls-tree', '-r', '-z', '--long', commit, '--', prefix || '.')).stdout.split('\0').filter(Boolean);
  const inside = prefix ? `${prefix}/` : '';
  const files: { file: string; text: string }[] = [];
  const problems: DefinitionProblem[] = [];
  for (const entry of listing) {
    const tab = entry.indexOf('\t');
    const file = entry.slice(tab + 1);
    const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
    if (!file.startsWith(inside) || !/\.ya?ml$/.test(file)) continue;
    const relative = file.slice(inside.length);
    if (size > MAX_DEFINITION_FILE_BYTES) {
      problems.push(tooLargeProblem(relative, `${size} bytes`));
      continue;
    }
    const bytes = (await run('git', ['show', `${commit}:${file}`], { cwd, maxBuffer: MAX_DEFINITION_FILE_BYTES + 1, encoding: 'buffer' })).stdout;
    const read = definitionText(relative, bytes);
    if ('problem' in read) problems.push(read.problem);
    else files.push({ file: relative, text: read.text });
  }
  return { prefix, files, problems };
}
