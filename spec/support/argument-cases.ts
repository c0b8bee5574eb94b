import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { DefinitionsLoader } from '../../engine/core/definitions/loader.ts';
import { formatProblem } from '../../engine/core/definitions/problems.ts';
import { sourceFile, type SourceFile } from '../../engine/core/definitions/source-files.ts';
import type { AppVersion, DefinitionsSnapshot } from '../../engine/core/definitions/snapshot.ts';
import type { FieldProblem } from '../../engine/platform/errors/index.ts';
import type { HostValues, ListOption, OutboundRequest } from '../../engine/core/arguments/index.ts';

export const ARGUMENT_FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/arguments');
export const GOLDEN = path.join(ARGUMENT_FIXTURES, 'golden');

/**
 * One golden file: the definitions of a small app (api, auths, actions, as an
 * author writes them) and the cases run against it. Each case gives a
 * caller's arguments (and host values) and expects either the outbound
 * request or the list of problems of the VALIDATION_ERROR.
 */
export interface GoldenFile {
  description: string;
  api?: Record<string, unknown>;
  auths?: Record<string, unknown>[];
  actions: Record<string, unknown>[];
  /** What each lookup action answers, by action id. */
  lookups?: Record<string, ListOption[]>;
  cases: GoldenCase[];
}

export interface GoldenCase {
  name: string;
  action: string;
  /** The auth of the connection, by id; the API's first when omitted. */
  auth?: string;
  arguments?: unknown;
  host?: HostValues;
  request?: Partial<OutboundRequest>;
  /** The `arguments` of the build (checked values by key), when the case pins them. */
  checked?: Record<string, unknown>;
  /** The host variables of the build (what an auth fills its placeholders from), when the case pins them. */
  variables?: Record<string, string>;
  errors?: Partial<FieldProblem>[];
}

const DEFAULT_API = { baseUrl: 'https://api.example.test/v1', auths: ['token'] };
const DEFAULT_AUTH = { type: 'Bearer', id: 'token', token: '{{accessToken}}', arguments: [{ key: 'accessToken', dataType: 'String' }] };

/** Read synchronously: mocha needs the cases when it collects tests, before anything async runs. */
export function readGoldenFiles(): Map<string, GoldenFile> {
  const files = new Map<string, GoldenFile>();
  for (const name of fs.readdirSync(GOLDEN).filter((f) => f.endsWith('.yaml')).sort()) {
    files.set(name.replace(/\.yaml$/, ''), parse(fs.readFileSync(path.join(GOLDEN, name), 'utf8')) as GoldenFile);
  }
  return files;
}

/**
 * Every golden file becomes an app (named after the file) of one definitions
 * folder, loaded by the real loader: the fixtures are valid definitions, and
 * mappers are compiled exactly as in production.
 */
export function loadGoldenApps(golden: Map<string, GoldenFile>): DefinitionsSnapshot {
  const files: SourceFile[] = [];
  for (const [app, file] of golden) {
    const add = (rel: string, content: unknown) => files.push(sourceFile(`${app}/${rel}`, stringify(content)));
    add('app.yaml', { id: app, slug: app, name: file.description.slice(0, 200), published: 1 });
    add('versions/1/api.yaml', file.api ?? DEFAULT_API);
    for (const auth of file.auths ?? [DEFAULT_AUTH]) add(`versions/1/auths/${auth.id}.yaml`, auth);
    for (const action of file.actions) add(`versions/1/actions/${action.id}.yaml`, { slug: action.id, name: action.id, operation: 'other', method: 'GET', ...action });
  }
  const result = new DefinitionsLoader().load(files);
  if (!result.ok) throw new Error(`golden definitions are invalid:\n${result.problems.map((p) => formatProblem(p, (f) => f)).join('\n')}`);
  return result.snapshot;
}

export function versionOf(snapshot: DefinitionsSnapshot, app: string): AppVersion {
  return snapshot.apps.get(app)!.versions.get(1)!;
}
