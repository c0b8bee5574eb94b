/**
 * `npm run import -- --app <slug> [--dir <definitions dir>] [--operations
 * <operationId,...>] [--tags <tag,...>] [--version <n>] [--name "Display Name"]
 * [--base-url <url>] <description file>`: writes an app folder made from an
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
import { runImport } from '../engine/authoring/import/run-import.ts';
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

const list = (value: string | undefined) => value?.split(',').map((v) => v.trim()).filter(Boolean);

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const { values } = args;
  const usage = (message: string) => {
    process.stderr.write(`${message}\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  };
  if (values.version !== undefined && !/^[1-9][0-9]*$/.test(values.version)) usage(`--version must be a positive whole number (got "${values.version}")`);
  else if (values.name !== undefined && !values.name.trim()) usage('--name must not be empty');
  // Given but naming nothing (',,'): refused, not read as no filter at all.
  else if (values.operations !== undefined && !list(values.operations)!.length) usage(`--operations names no operationId (got ${JSON.stringify(values.operations)})`);
  else if (values.tags !== undefined && !list(values.tags)!.length) usage(`--tags names no tag (got ${JSON.stringify(values.tags)})`);
  else {
    const outcome = await runImport(args.positionals[0]!, {
      dir: values.dir ?? process.env.DEFINITIONS_DIR ?? 'definitions',
      slug: values.app!,
      version: values.version === undefined ? undefined : Number(values.version),
      name: values.name,
      operations: list(values.operations),
      tags: list(values.tags),
      baseUrl: values['base-url'],
    });
    // exitCode rather than exit(): output to a pipe is written asynchronously and must not be cut off.
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    process.exitCode = outcome.exitCode;
  }
}
