import path from 'node:path';
import type { DefinitionKind } from '../core/definitions/layout.ts';
import { SCHEMAS_DIR } from '../core/definitions/schema-validation.ts';
import { formatDefinition } from './canonical-yaml.ts';

/** An app id and slug: kebab-case, as common.schema.json's identifier. */
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 100;

/** "acme-crm" → "Acme Crm": a starting display name the author will likely adjust. */
export function nameFromSlug(slug: string): string {
  return slug
    .split('-')
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
}

/** Why `slug` cannot name an app, or null when it can. */
export function slugProblem(slug: string): string | null {
  if (!SLUG.test(slug)) return `"${slug}" is not a valid app slug: use kebab-case, lowercase letters and digits joined by single hyphens (acme-crm)`;
  if (slug.length > SLUG_MAX_LENGTH) return `"${slug}" is too long for an app slug (at most ${SLUG_MAX_LENGTH} characters)`;
  return null;
}

const KIND_OF: Record<string, DefinitionKind> = { 'app.yaml': 'app', 'api.yaml': 'api', auths: 'auth', actions: 'action' };

/**
 * The files of a new app folder, by path inside it: an app file without a
 * published pointer (only a draft exists), a draft version with an API on a
 * placeholder host, an API-key auth, one list action with a cursor, and the
 * action's offline test cases. Every definition file is valid and in
 * canonical form as generated; `appFolder` (absolute) is where it will be
 * written: inside this repository, each file gets an editor modeline
 * pointing at schemas/ from there.
 */
export function scaffoldFiles(slug: string, name: string, appFolder: string): Map<string, string> {
  const files = new Map<string, string>();
  const definition = (file: string, schema: string, lines: string[]) => {
    const toSchemas = path.relative(path.dirname(path.join(appFolder, file)), path.join(SCHEMAS_DIR, schema)).split(path.sep).join('/');
    // A modeline only inside this repository: elsewhere it would name a path on this machine.
    const inRepository = !path.relative(path.dirname(SCHEMAS_DIR), appFolder).startsWith('..');
    const text = [...(inRepository ? [`# yaml-language-server: $schema=${toSchemas}`] : []), ...lines, ''].join('\n');
    const kind = KIND_OF[file.split('/').at(-1)!] ?? KIND_OF[file.split('/').at(-2)!]!;
    const formatted = formatDefinition(kind, text);
    files.set(file, formatted.ok ? formatted.text : text);
  };

  definition('app.yaml', 'app.schema.json', [
    `# Add \`published: 1\` once versions/draft is copied to versions/1 (see docs/definitions.md).`,
    `id: ${slug}`,
    `slug: ${slug}`,
    `name: ${JSON.stringify(name)}`,
    `description: ${JSON.stringify(`What ${name} is, for people choosing it.`)}`,
    'website: https://api.example.com/docs',
  ]);
  definition('versions/draft/api.yaml', 'api.schema.json', [
    '# Replace the base URL and headers with the provider\'s.',
    'baseUrl: https://api.example.com',
    'headers:',
    '  Accept: application/json',
    'auths:',
    '  - api-key',
    '# The next page\'s cursor (meta.cursor of a list mapping) goes back as ?cursor=.',
    'pagination:',
    '  type: Cursor',
    '  location: Query',
    '  key: cursor',
  ]);
  definition('versions/draft/auths/api-key.yaml', 'auth.schema.json', [
    'type: ApiKey',
    'id: api-key',
    'name: API key',
    `description: ${JSON.stringify(`An API key from the ${name} dashboard.`)}`,
    'arguments:',
    '  - key: apiKey',
    '    label: API key',
    '    dataType: String',
    '    required: true',
    'in: Header',
    'parameterName: Authorization',
    'value: Bearer {{apiKey}}',
  ]);
  definition('versions/draft/actions/list-items.yaml', 'action.schema.json', [
    '# Link the provider\'s reference of the endpoint here.',
    'id: list-items',
    'slug: list-items',
    'name: List items',
    'description: Items, one page at a time; meta.cursor is the next page\'s cursor.',
    'operation: list',
    'method: GET',
    'path: /items',
    'arguments:',
    '  - key: limit',
    '    label: Page size',
    '    dataType: Number',
    '    location: Query',
    '    default: 50',
    'response: |',
    '  {',
    '    "success": status = 200,',
    '    "data": [body.items.{ "id": id, "name": name }],',
    '    "meta": { "cursor": body.next }',
    '  }',
  ]);
  files.set('versions/draft/actions/list-items.test.yaml', testCases(slug));
  return files;
}

/** The offline test cases of list-items, in the format docs/definitions.md ("Offline tests") describes. */
function testCases(slug: string): string {
  return `# Offline test cases of list-items: npm run test:definitions -- ${slug}
# runs each through the engine with the network replaced by \`response\`.
cases:
  - name: lists the first page
    connection:
      credentials: { apiKey: test-key }
    arguments: { limit: 2 }
    request:
      method: GET
      url: https://api.example.com/items
      query: { limit: "2" }
      headers: { authorization: Bearer test-key }
      body: null
    response:
      status: 200
      headers: { content-type: application/json }
      body: { items: [{ id: 1, name: First }], next: abc }
    expect:
      success: true
      data: [{ id: 1, name: First }]
      meta: { cursor: abc }
  - name: ends on the last page without a cursor
    connection:
      credentials: { apiKey: test-key }
    arguments: { cursor: abc }
    request:
      method: GET
      url: https://api.example.com/items
      query: { limit: "50", cursor: abc }
    response:
      status: 200
      headers: { content-type: application/json }
      body: { items: [] }
    expect:
      success: true
      data: []
      meta: {}
`;
}
