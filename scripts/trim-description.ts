/**
 * `npm run description:trim -- <app slug> <description file>`: cuts a
 * provider's OpenAPI (3.x) or Swagger (2.0) description, JSON or YAML, down
 * to the operations the app's actions use (and the components they
 * reference), and writes it as spec/fixtures/descriptions/<app>/openapi.json,
 * the copy `npm test` holds the app to. An action with no operation in the
 * description is named, and exits 1 (nothing written). An app not in
 * definitions/, or a file that cannot be read or is not an OpenAPI or Swagger
 * description, is a usage error: named, exit 2, nothing written. Write SOURCE.md
 * beside it by hand: where the description comes from, its commit, its licence.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { DESCRIPTIONS_DIR, heldVersion } from '../engine/authoring/description-fixtures.ts';
import { describedOperations, pathShape, trimDescription } from '../engine/authoring/openapi-operations.ts';
import { loadDefinitions } from '../engine/core/definitions/loader.ts';
import { commandLine, isEntry, usageLine } from '../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'npm run description:trim --',
  summary: "Writes the trimmed copy of a provider's API description that npm test holds an app to.",
  options: {},
  positionals: [
    { name: '<app slug>', description: 'the app (in definitions/)' },
    { name: '<description file>', description: "the provider's OpenAPI or Swagger document, JSON or YAML" },
  ],
  examples: ['npm run description:trim -- slack /tmp/slack_web_openapi_v2.json'],
};

/** The description as a document, or why it is not one (unreadable, not JSON or YAML, no `paths`). */
async function readDescription(file: string): Promise<Record<string, any> | string> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file}: ${code ?? (error as Error).message}`;
  }
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: -1 });
  } catch (error) {
    return `${file} is not JSON or YAML: ${(error as Error).message.split('\n')[0]}`;
  }
  const paths = (doc as { paths?: unknown } | null)?.paths;
  if (!doc || typeof doc !== 'object' || !paths || typeof paths !== 'object') return `${file} is not an OpenAPI or Swagger description (no paths)`;
  return doc as Record<string, any>;
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const [slug, source] = args.positionals as [string, string];
  const refuse = (message: string) => {
    process.stderr.write(`${message}\n${usageLine(cli)}\n`);
    process.exitCode = 2;
  };
  const doc = await readDescription(source);
  const loaded = typeof doc === 'string' ? null : await loadDefinitions(path.resolve('definitions'));
  const version = loaded?.ok ? heldVersion(loaded.snapshot, slug) : undefined;
  if (typeof doc === 'string') refuse(doc);
  else if (!version) refuse(`no app ${slug} in definitions/ (or it does not load)`);
  else {
    const operations = describedOperations(doc);
    const base = version.api.baseUrl.replace(/\{\{\s*([\w.]+)\s*\}\}/g, '{$1}').replace(/^[a-z]+:\/\/[^/]*/i, '').replace(/^\{[\w.]+\}/, '').replace(/\/+$/, '');
    const keep: { method: string; documentPath: string }[] = [];
    const missing: string[] = [];
    for (const action of [...version.actions.values()].sort((a, b) => a.id.localeCompare(b.id))) {
      const shape = pathShape(`${base}${action.path.replace(/:(\w+)/g, '{$1}')}`);
      const op = operations.find((o) => o.method === action.method && pathShape(o.path) === shape);
      if (op) keep.push({ method: op.method, documentPath: op.documentPath });
      else missing.push(`${action.id}: ${action.method} ${action.path}`);
    }
    if (missing.length) {
      process.stderr.write(`not in the description:\n${missing.map((m) => `  ${m}\n`).join('')}`);
      process.exitCode = 1;
    } else {
      const out = path.join(DESCRIPTIONS_DIR, slug, 'openapi.json');
      await fs.mkdir(path.dirname(out), { recursive: true });
      await fs.writeFile(out, `${JSON.stringify(trimDescription(doc, keep), null, 1)}\n`);
      process.stdout.write(`wrote ${out} (${keep.length} operations)\n`);
    }
  }
}
