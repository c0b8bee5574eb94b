import path from 'node:path';
import { formatProblem } from '../../core/definitions/problems.ts';
import { BUNDLED_DEFINITIONS } from '../create-app.ts';
import { ImportError } from './import-error.ts';
import { importDescription, type ImportOptions } from './import-app.ts';
import type { ImportedApp } from './imported-app.ts';
import { renderFiles } from './render-files.ts';
import { problemsOf, reimportDiff, targetOf, writeTarget, type Target } from './write-app-folder.ts';

export interface RunImportOptions extends Omit<ImportOptions, 'slug'> {
  /** The definitions folder written to. */
  dir: string;
  slug: string;
  /** A numbered version instead of draft. */
  version?: number | undefined;
  /** The bundled definitions, whose ids and slugs a new app may not take (default: this repository's definitions/). */
  bundled?: string;
  /** Where paths are shown relative to (default: the process's folder). */
  cwd?: string;
}

export interface RunImportOutcome {
  /** 0 written, 1 what it made does not load (nothing written), 2 bad input (nothing written). */
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
  /** What was imported, when it was written. */
  app?: ImportedApp;
  target?: Target;
}

/**
 * `npm run import`, all but the command line: where to write (a new app, or
 * a new version of one that exists), the import, the files in canonical
 * form, the gateway's loader run over them before anything is written, the
 * write (a temp folder renamed into place), and the report: what was
 * imported, what was skipped and why, what to review, and for a re-import
 * `npm run diff` of the new version against the published one.
 */
export async function runImport(file: string, options: RunImportOptions): Promise<RunImportOutcome> {
  const cwd = options.cwd ?? process.cwd();
  const shown = (p: string) => path.relative(cwd, path.resolve(cwd, p)) || '.';
  try {
    const target = await targetOf(path.resolve(cwd, options.dir), options.slug, options.version, options.bundled ?? BUNDLED_DEFINITIONS);
    const { description, app } = await importDescription(path.resolve(cwd, file), { ...options, slug: options.slug });
    if (target.mode === 'new' && options.version !== undefined) app.app.definition.published = options.version;
    const files = renderFiles(app, target.version, target.mode === 'new');
    const problems = await problemsOf(target, files);
    if (problems.length) {
      const lines = problems.map((problem) => formatProblem(problem, (f) => shown(path.join(path.dirname(target.appFolder), f))));
      lines.push(`the app made from ${file} does not load (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing written. This is a bug of the importer: please report it with the description.`);
      return { exitCode: 1, stdout: '', stderr: `${lines.join('\n')}\n` };
    }
    await writeTarget(target, files);
    const out = report(file, description.format, description.declaredVersion, app, target, shown, options);
    const diff = await reimportDiff(target, cwd);
    if (diff) out.push(`What changed against version ${target.compareWith} (${diff.command}):`, '', diff.markdown);
    else if (target.mode === 'reimport') out.push(`The app has no numbered version to compare ${shown(path.join(target.appFolder, 'versions', target.version))} with.`, '');
    return { exitCode: 0, stdout: out.join('\n'), stderr: '', app, target };
  } catch (error) {
    if (error instanceof ImportError) return { exitCode: 2, stdout: '', stderr: `${error.message}\n` };
    throw error;
  }
}

function report(file: string, format: string, declared: string, app: ImportedApp, target: Target, shown: (p: string) => string, options: RunImportOptions): string[] {
  const cases = app.actions.reduce((n, a) => n + a.cases.length, 0);
  const versionFolder = shown(path.join(target.appFolder, 'versions', target.version));
  const out = [
    `Imported ${file} (${format}, ${declared}) into ${versionFolder}${target.mode === 'new' ? ` (new app ${options.slug})` : ''}:`,
    `  ${app.actions.length} action${app.actions.length === 1 ? '' : 's'} with ${cases} offline case${cases === 1 ? '' : 's'}, ${app.auths.length} auth${app.auths.length === 1 ? '' : 's'} (${app.auths.map((a) => `${a.definition.id}: ${a.definition.type}`).join(', ')})`,
    `  ${app.skipped.length} skipped`,
  ];
  if (app.skipped.length) out.push('', 'Skipped:', ...app.skipped.map((s) => `  ${s.what}: ${s.reason}`));
  if (app.notes.length) out.push('', 'To review:', ...app.notes.map((n) => `  ${n}`));
  const folder = shown(options.dir);
  out.push(
    '',
    'Next: review the mappings, pagination and names (docs/definitions.md, "Importing from an OpenAPI description"), then',
    `  npm run validate -- ${folder}`,
    `  npm run test:definitions -- ${options.slug}${folder === 'definitions' ? '' : ` --dir ${folder}`}`,
    '',
  );
  return out;
}
