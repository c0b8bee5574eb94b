/**
 * `npm run import -- <description file> --app <slug> [--dir <definitions dir>]
 * [--operations <operationId,...>] [--tags <tag,...>] [--version <n>]
 * [--name "Display Name"] [--base-url <url>]`: writes an app folder made from an
 * OpenAPI 3.0 or 3.1 description (JSON or YAML; Swagger 2.0 converted): the
 * app, its API and auths, one action per operation with its offline cases,
 * in canonical form. Operations an action cannot express are listed with the
 * reason. Into an app that exists, it writes a new version (draft, or
 * --version <n>) and prints `npm run diff` of it against the published one.
 *
 * Exits 0 when the app was written, 1 when what it made does not load
 * (nothing is written; a bug to report), 2 on a usage error or bad input (not
 * a description, a `$ref` that does not resolve, colliding operation ids, a
 * slug another app uses, a version that exists): one line, nothing written.
 */
import path from 'node:path';
import { BUNDLED_DEFINITIONS } from '../engine/authoring/create-app.ts';
import { ImportError } from '../engine/authoring/import/import-error.ts';
import { importDescription } from '../engine/authoring/import/import-app.ts';
import { renderFiles } from '../engine/authoring/import/render-files.ts';
import { problemsOf, reimportDiff, targetOf, writeTarget } from '../engine/authoring/import/write-app-folder.ts';
import { formatProblem } from '../engine/core/definitions/problems.ts';
import { commandLine, isEntry, usageLine } from '../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'npm run import --',
  summary:
    'Writes an app folder made from an OpenAPI 3.0 or 3.1 description (JSON or YAML; Swagger 2.0 converted): one action per operation with its offline cases, in canonical form. Into an existing app, writes a new version and prints npm run diff of it against the published one.',
  options: {
    app: { type: 'string' as const, value: '<slug>', description: "the app's id and slug (kebab-case); an existing app gets a new version", required: true as const },
    dir: { type: 'string' as const, value: '<definitions dir>', description: 'the definitions folder to write to (default DEFINITIONS_DIR, else definitions)' },
    operations: { type: 'string' as const, value: '<operationId,...>', description: 'only these operations (deprecated ones are imported only when named)' },
    tags: { type: 'string' as const, value: '<tag,...>', description: 'only operations with one of these tags' },
    version: { type: 'string' as const, value: '<n>', description: 'write versions/<n> instead of versions/draft (a new app publishes it)' },
    name: { type: 'string' as const, value: '"Display Name"', description: "the app's display name (default: the description's title)" },
    'base-url': { type: 'string' as const, value: '<url>', description: "the API's base URL, when the description's servers give none or another is wanted" },
  },
  positionals: [{ name: '<description file>', description: 'an OpenAPI 3.0 or 3.1 (or Swagger 2.0) description, JSON or YAML' }],
  examples: [
    'npm run import -- spec/fixtures/openapi-import/asana/asana.yaml --app asana-imported --dir some/folder',
    'npm run import -- openapi.json --app acme --tags Contacts,Deals',
    'npm run import -- openapi-v2.json --app acme            # acme exists: writes versions/draft and prints the diff',
  ],
};

class UsageError extends Error {}

const list = (value: string | undefined) => value?.split(',').map((v) => v.trim()).filter(Boolean);

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const { values } = args;
  const file = args.positionals[0]!;
  const dir = values.dir ?? process.env.DEFINITIONS_DIR ?? 'definitions';
  try {
    if (values.version !== undefined && !/^[1-9][0-9]*$/.test(values.version)) throw new UsageError(`--version must be a positive whole number (got "${values.version}")`);
    if (values.name !== undefined && !values.name.trim()) throw new UsageError('--name must not be empty');
    await run(file, dir, values.app!, values);
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n${usageLine(cli)}\n`);
    else if (error instanceof ImportError) process.stderr.write(`${error.message}\n`);
    else throw error;
    process.exitCode = 2;
  }
}

async function run(file: string, dir: string, slug: string, values: NonNullable<typeof args>['values']): Promise<void> {
  const version = values.version === undefined ? undefined : Number(values.version);
  const target = await targetOf(dir, slug, version, BUNDLED_DEFINITIONS);
  const { description, app } = await importDescription(file, { slug, name: values.name, operations: list(values.operations), tags: list(values.tags), baseUrl: values['base-url'] });
  if (target.mode === 'new' && version !== undefined) app.app.definition.published = version;
  const files = renderFiles(app, target.version, target.mode === 'new');
  const shown = (p: string) => path.relative(process.cwd(), path.resolve(p)) || '.';
  const problems = await problemsOf(target, files);
  if (problems.length) {
    for (const problem of problems) process.stderr.write(`${formatProblem(problem, (f) => shown(path.join(dir, f)))}\n`);
    process.stderr.write(`the app made from ${file} does not load (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing written. This is a bug of the importer: please report it with the description.\n`);
    process.exitCode = 1;
    return;
  }
  await writeTarget(target, files);

  const cases = app.actions.reduce((n, a) => n + a.cases.length, 0);
  const versionFolder = shown(path.join(target.appFolder, 'versions', target.version));
  const out: string[] = [
    `Imported ${file} (${description.format}, ${description.declaredVersion}) into ${versionFolder}${target.mode === 'new' ? ` (new app ${slug})` : ''}:`,
    `  ${app.actions.length} action${app.actions.length === 1 ? '' : 's'} with ${cases} offline case${cases === 1 ? '' : 's'}, ${app.auths.length} auth${app.auths.length === 1 ? '' : 's'} (${app.auths.map((a) => `${a.definition.id}: ${a.definition.type}`).join(', ')})`,
    `  ${app.skipped.length} skipped`,
  ];
  if (app.skipped.length) out.push('', 'Skipped:', ...app.skipped.map((s) => `  ${s.what}: ${s.reason}`));
  if (app.notes.length) out.push('', 'To review:', ...app.notes.map((n) => `  ${n}`));
  const folder = shown(dir);
  out.push('', 'Next: review the mappings, pagination and names (docs/definitions.md, "Importing from an OpenAPI description"), then', `  npm run validate -- ${folder}`, `  npm run test:definitions -- ${slug}${folder === 'definitions' ? '' : ` --dir ${folder}`}`, '');
  const diff = await reimportDiff(target, process.cwd());
  if (diff) out.push(`What changed against version ${target.compareWith} (${diff.command}):`, '', diff.markdown);
  else if (target.mode === 'reimport') out.push(`The app has no numbered version to compare ${versionFolder} with.`, '');
  process.stdout.write(out.join('\n'));
}
