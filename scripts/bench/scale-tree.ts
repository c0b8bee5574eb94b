/**
 * A generated definitions tree for the scale benchmark: `apps` apps with
 * `actions` actions each (1,000 x 30 by default), every file valid. Each
 * app has an ApiKey auth and cursor pagination; two actions in three are
 * listings (a Query argument with a default, a Fixed list, a hidden one, a
 * cursor-free mapper) and one in three gets by a Param; each has a
 * response mapping.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export function appName(i: number): string {
  return `app-${String(i).padStart(4, '0')}`;
}

export function actionFile(app: string, j: number, edit = 0): [string, string] {
  const id = j % 3 === 0 ? `get-thing-${j}` : `list-things-${j}`;
  const name = `${j % 3 === 0 ? 'Get thing' : 'List things'} ${j}${edit ? ` (edit ${edit})` : ''}`;
  const lines =
    j % 3 === 0
      ? [
          `id: ${id}`,
          `slug: ${id}`,
          `name: ${name}`,
          'operation: get',
          'method: GET',
          `path: /things-${j}/:thingId`,
          'arguments:',
          '  - key: thingId',
          '    dataType: String',
          '    location: Param',
          '    required: true',
          '  - key: expand',
          '    dataType: String',
          '    location: Query',
          '    hidden: true',
          '    default: details',
          'response: |',
          '  {',
          '    "success": status = 200,',
          `    "data": [body.{ "id": id, "name": name, "kind": "${app}-${j}", "updatedAt": updated_at }]`,
          '  }',
        ]
      : [
          `id: ${id}`,
          `slug: ${id}`,
          `name: ${name}`,
          'operation: list',
          'method: GET',
          `path: /things-${j}`,
          'arguments:',
          '  - key: limit',
          '    externalKey: per_page',
          '    dataType: Number',
          '    location: Query',
          '    default: 25',
          '  - key: state',
          '    dataType: List',
          '    location: Query',
          '    default: open',
          '    list:',
          '      type: Fixed',
          '      options:',
          '        - { value: open, label: Open }',
          '        - { value: closed, label: Closed }',
          '  - key: search',
          '    dataType: String',
          '    location: Query',
          '    mapper: $lowercase(value)',
          '  - key: view',
          '    dataType: String',
          '    location: Query',
          '    hidden: true',
          '    default: compact',
          'response: |',
          '  {',
          '    "success": status = 200,',
          `    "data": [body.items.{ "id": id, "name": name, "kind": "${app}-${j}", "createdAt": created_at }],`,
          '    "meta": { "cursor": body.next ? body.next }',
          '  }',
        ];
  return [`${app}/versions/1/actions/${id}.yaml`, `${lines.join('\n')}\n`];
}

export function appFiles(i: number, actions: number): [string, string][] {
  const app = appName(i);
  const files: [string, string][] = [
    [`${app}/app.yaml`, `id: ${app}\nslug: ${app}\nname: App ${i}\ndescription: Generated app ${i} for the scale benchmark.\npublished: 1\n`],
    [
      `${app}/versions/1/api.yaml`,
      `baseUrl: https://api.${app}.example.com/v1\nheaders:\n  Accept: application/json\nauths:\n  - key\npagination:\n  type: Cursor\n  location: Query\n  key: cursor\n`,
    ],
    [
      `${app}/versions/1/auths/key.yaml`,
      "type: ApiKey\nid: key\nname: API key\nin: Header\nparameterName: Authorization\nvalue: 'Bearer {{apiKey}}'\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n",
    ],
  ];
  for (let j = 1; j <= actions; j++) files.push(actionFile(app, j));
  return files;
}

/** Writes the tree under `dir` (which should be empty); answers the number of files. */
export async function generateTree(dir: string, apps: number, actions: number): Promise<number> {
  let count = 0;
  for (let i = 1; i <= apps; i++) {
    const files = appFiles(i, actions);
    const folders = new Set(files.map(([file]) => path.dirname(path.join(dir, file))));
    for (const folder of folders) await fs.mkdir(folder, { recursive: true });
    await Promise.all(files.map(([file, text]) => fs.writeFile(path.join(dir, file), text)));
    count += files.length;
  }
  return count;
}
