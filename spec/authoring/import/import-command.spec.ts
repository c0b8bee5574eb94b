import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { DESCRIPTION_LIMITS } from '../../../engine/authoring/import/read-description.ts';
import { runImport } from '../../../engine/authoring/import/run-import.ts';
import { runDefinitionTests } from '../../../engine/authoring/definition-tests.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { tempDir } from '../../support/definition-fixtures.ts';
import { runScript } from '../run-script.ts';

/** A small OpenAPI 3.0 description: a listing with a cursor, a get, a create and a delete, an API key. */
function petstore(overrides: { info?: object; extraPaths?: object; schemas?: object; title?: string } = {}) {
  return {
    openapi: '3.0.3',
    info: { title: overrides.title ?? 'Pet Store', version: '1.0.0', description: 'Pets of a store.', ...overrides.info },
    servers: [{ url: 'https://api.pets.example/v1' }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
      schemas: {
        Pet: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' }, tag: { type: 'string' } } },
        ...overrides.schemas,
      },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          tags: ['pets'],
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100, default: 20 } },
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'A page of pets',
              content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Pet' } }, next_cursor: { type: 'string' } } } } },
            },
          },
        },
        post: {
          operationId: 'createPet',
          summary: 'Create a pet',
          tags: ['pets'],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 50 }, tag: { type: 'string' } } } } } },
          responses: { 201: { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
        },
      },
      '/pets/{petId}': {
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        get: { operationId: 'getPet', summary: 'Get a pet', tags: ['pets'], responses: { 200: { description: 'A pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } },
        delete: { operationId: 'deletePet', summary: 'Delete a pet', tags: ['admin'], responses: { 204: { description: 'Deleted' } } },
      },
      '/pets/{petId}/photo': {
        post: { operationId: 'uploadPhoto', tags: ['pets'], requestBody: { content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } } } }, responses: { 200: { description: 'ok' } } },
      },
      ...overrides.extraPaths,
    },
  };
}

async function listing(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string) => {
    for (const entry of await fs.readdir(at, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) await walk(path.join(at, entry.name));
      else found.push(path.relative(dir, path.join(at, entry.name)));
    }
  };
  await walk(dir);
  return found.sort();
}

describe('npm run import', function () {
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  let defs: string;
  const write = async (name: string, value: unknown) => {
    const file = path.join(tmp.dir, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };
  const imported = (file: string, slug = 'pets', extra: Record<string, unknown> = {}) => runImport(file, { dir: defs, slug, cwd: tmp.dir, ...extra });
  beforeEach(async () => {
    tmp = await tempDir('import-');
    defs = path.join(tmp.dir, 'definitions');
  });
  afterEach(() => tmp.remove());

  it('writes an app that loads, whose cases pass, and lists the operations it skipped with the reason', async () => {
    const outcome = await imported(await write('pets.json', petstore()));
    expect(outcome.stderr).to.equal('');
    expect(outcome.exitCode).to.equal(0);
    expect(outcome.stdout).to.contain('4 actions with 5 offline cases, 1 auth (api-key: ApiKey)');
    expect(outcome.stdout).to.contain('  POST /pets/{petId}/photo (uploadPhoto): its body is multipart (a file upload), which an action cannot send');
    expect(await listing(defs)).to.deep.equal([
      'pets/app.yaml',
      'pets/versions/draft/actions/create-pet.test.yaml',
      'pets/versions/draft/actions/create-pet.yaml',
      'pets/versions/draft/actions/delete-pet.test.yaml',
      'pets/versions/draft/actions/delete-pet.yaml',
      'pets/versions/draft/actions/get-pet.test.yaml',
      'pets/versions/draft/actions/get-pet.yaml',
      'pets/versions/draft/actions/list-pets.test.yaml',
      'pets/versions/draft/actions/list-pets.yaml',
      'pets/versions/draft/api.yaml',
      'pets/versions/draft/auths/api-key.yaml',
    ]);
    const list = parse(await fs.readFile(path.join(defs, 'pets/versions/draft/actions/list-pets.yaml'), 'utf8'));
    expect(list).to.deep.include({ id: 'list-pets', slug: 'list-pets', name: 'List pets', operation: 'list', method: 'GET', path: '/pets' });
    expect(list.arguments).to.deep.equal([{ key: 'limit', dataType: 'Number', location: 'Query', default: 20, integer: true, maximum: 100 }]);
    expect(list.pagination).to.deep.equal({ type: 'Cursor', location: 'Query', key: 'cursor', next: 'body.next_cursor' });
    expect(list.response).to.equal('{\n  "data": body.data\n}\n');
    const get = parse(await fs.readFile(path.join(defs, 'pets/versions/draft/actions/get-pet.yaml'), 'utf8'));
    expect(get).to.deep.include({ operation: 'get', path: '/pets/:petId' });
    expect(get.arguments).to.deep.equal([{ key: 'petId', dataType: 'String', location: 'Param', required: true }]);
    const create = parse(await fs.readFile(path.join(defs, 'pets/versions/draft/actions/create-pet.yaml'), 'utf8'));
    expect(create.arguments).to.deep.equal([
      { key: 'name', dataType: 'String', location: 'Body', required: true, maxLength: 50 },
      { key: 'tag', dataType: 'String', location: 'Body' },
    ]);
    const auth = parse(await fs.readFile(path.join(defs, 'pets/versions/draft/auths/api-key.yaml'), 'utf8'));
    expect(auth).to.deep.include({ type: 'ApiKey', id: 'api-key', in: 'Header', parameterName: 'X-Api-Key', value: '{{apiKey}}' });
    const app = parse(await fs.readFile(path.join(defs, 'pets/app.yaml'), 'utf8'));
    expect(app).to.deep.equal({ id: 'pets', slug: 'pets', name: 'Pet Store', description: 'Pets of a store.' });

    expect((await loadDefinitions(defs)).ok).to.equal(true);
    const lines: string[] = [];
    expect(await runDefinitionTests(defs, { write: (l) => lines.push(l) })).to.deep.include({ passed: 5, failed: 0 });
  });

  it('imports fields and parameters named like members of every object (constructor, toString), and their cases pass', async () => {
    const odd = {
      '/odd': {
        post: {
          operationId: 'postOdd',
          summary: 'Post odd names',
          parameters: [{ name: 'constructor', in: 'query', required: true, schema: { type: 'string' }, example: 'c' }],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { toString: { type: 'string' }, hasOwnProperty: { type: 'string' } } } } } },
          responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } },
        },
      },
    };
    const outcome = await imported(await write('odd.json', petstore({ extraPaths: odd })), 'pets', { operations: ['postOdd'] });
    expect(outcome.stderr).to.equal('');
    expect(outcome.exitCode).to.equal(0);
    expect((await loadDefinitions(defs)).ok).to.equal(true);
    const lines: string[] = [];
    expect(await runDefinitionTests(defs, { write: (l) => lines.push(l) }), lines.join('\n')).to.deep.include({ passed: 1, failed: 0 });
  });

  it('names an action whose operationId has no Latin words and no summary by that id (列表), never an empty name', async () => {
    const odd = { '/things': { get: { operationId: '列表', responses: { 200: { description: 'ok' } } } } };
    const outcome = await imported(await write('odd.json', petstore({ extraPaths: odd })), 'pets', { operations: ['列表'] });
    expect(outcome.stderr).to.equal('');
    expect(outcome.exitCode).to.equal(0);
    const [file] = (await listing(defs)).filter((f) => f.endsWith('.yaml') && f.includes('/actions/') && !f.endsWith('.test.yaml'));
    expect(parse(await fs.readFile(path.join(defs, file!), 'utf8'))).to.deep.include({ name: '列表' });
    expect((await loadDefinitions(defs)).ok).to.equal(true);
  });

  it('runs as npm run import, prints the next commands, and they work as printed', async () => {
    const file = await write('pets.json', petstore());
    const run = await runScript('import.ts', [file, '--app', 'pets', '--dir', 'definitions'], { cwd: tmp.dir });
    expect(run.stderr).to.equal('');
    expect(run.code).to.equal(0);
    expect(run.stdout).to.contain('  npm run validate -- definitions\n  npm run test:definitions -- pets\n');
    const tests = await runScript('test-definitions.ts', ['pets'], { cwd: tmp.dir });
    expect(tests.stdout).to.contain('5 passed, 0 failed');
    expect(tests.code).to.equal(0);
  });

  it('imports only the operations or tags asked for; an unknown one is refused naming it', async () => {
    const file = await write('pets.json', petstore());
    const byId = await imported(file, 'pets', { operations: ['getPet', 'deletePet'] });
    expect(byId.stdout).to.contain('2 actions with');
    const byTag = await imported(file, 'admin-pets', { tags: ['admin'] });
    expect(byTag.stdout).to.contain('1 action with');
    const unknown = await imported(file, 'other', { operations: ['getPets'] });
    expect(unknown).to.deep.include({ exitCode: 2, stdout: '' });
    expect(unknown.stderr).to.equal(`${file} has no operation "getPets" (did you mean "getPet"?)\n`);
    const tag = await imported(file, 'other', { tags: ['cats'] });
    expect(tag.stderr).to.equal(`${file} has no tag "cats" (its tags: pets, admin)\n`);
  });

  describe('bad input: one line, exit code 2, nothing written', () => {
    const refused = async (file: string, line: string | RegExp, slug = 'pets') => {
      const outcome = await imported(file, slug);
      expect(outcome.exitCode).to.equal(2);
      expect(outcome.stdout).to.equal('');
      if (typeof line === 'string') expect(outcome.stderr).to.equal(`${line}\n`);
      else expect(outcome.stderr).to.match(line);
      expect(outcome.stderr.trim().split('\n')).to.have.length(1);
      expect(await listing(defs)).to.deep.equal([]);
    };

    it('a file that is not an OpenAPI description', async () => {
      const file = await write('notes.yaml', 'title: my notes\nitems: [1, 2]\n');
      await refused(file, `${file} is not an OpenAPI description: it has neither an openapi: 3.x nor a swagger: "2.0" field at its top`);
      const broken = await write('broken.yaml', 'openapi: 3.0.0\npaths: {\n');
      await refused(broken, /^.*broken\.yaml:3:1 is not valid YAML: /);
      const other = await write('v4.json', { openapi: '4.0.0', info: {}, paths: {} });
      await refused(other, `${other} is OpenAPI 4.0.0: the importer reads Swagger 2.0, OpenAPI 3.0 and OpenAPI 3.1`);
    });

    it('a $ref that does not resolve', async () => {
      const description = petstore();
      description.paths['/pets/{petId}'].get.responses[200].content['application/json'].schema = { $ref: '#/components/schemas/Cat' };
      const file = await write('pets.json', description);
      await refused(file, `${file}: $ref "#/components/schemas/Cat" does not resolve: Token "Cat" does not exist`);
    });

    it('two operations with one operation id, or ids that make one action id', async () => {
      const same = petstore();
      same.paths['/pets/{petId}'].delete.operationId = 'getPet';
      const file = await write('same.json', same);
      await refused(file, `${file}: operation id "getPet" is used by both GET /pets/{petId} and DELETE /pets/{petId}; rename one in the description, or leave one out with --operations`);
      const alike = petstore();
      alike.paths['/pets/{petId}'].delete.operationId = 'get_pet';
      const other = await write('alike.json', alike);
      await refused(other, `${other}: operation id "getPet" and "get_pet" make the same action id get-pet for GET /pets/{petId} and DELETE /pets/{petId}; rename one in the description, or leave one out with --operations`);
    });

    it('a slug another app uses, here or among the bundled apps', async () => {
      const file = await write('pets.json', petstore());
      await refused(file, 'definitions/github/app.yaml (the bundled definitions) already uses "github" as its id or slug', 'github');
      await fs.mkdir(path.join(defs, 'animals'), { recursive: true });
      await fs.writeFile(path.join(defs, 'animals/app.yaml'), 'id: animals\nslug: pets\nname: Animals\n');
      const outcome = await imported(file, 'pets');
      expect(outcome).to.deep.include({ exitCode: 2, stdout: '' });
      expect(outcome.stderr).to.match(/definitions\/animals\/app\.yaml already uses "pets" as its id or slug\n$/);
      expect(await listing(defs)).to.deep.equal(['animals/app.yaml']);
    });

    it('an invalid slug, a folder that is not an app', async () => {
      const file = await write('pets.json', petstore());
      await refused(file, '"Pets!" is not a valid app slug: use kebab-case, lowercase letters and digits joined by single hyphens (acme-crm)', 'Pets!');
      await fs.mkdir(path.join(defs, 'pets'), { recursive: true });
      const outcome = await imported(file, 'pets');
      expect(outcome.exitCode).to.equal(2);
      expect(outcome.stderr).to.match(/definitions\/pets exists and is not an app folder \(no app\.yaml\); choose another slug or remove it\n$/);
    });

    it('hostile descriptions: an alias bomb, a $ref to the network or outside the folder, an oversized file', async () => {
      const bomb = ['openapi: 3.0.0', 'a: &a [x,x,x,x,x,x,x,x,x]', ...'bcdefghi'.split('').map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`), 'paths: {}'].join('\n');
      await refused(await write('bomb.yaml', bomb), /bomb\.yaml:\d+:\d+ aliases expand this file to more than 5000000 values .*an alias bomb is refused/);
      const remote = petstore();
      remote.paths['/pets/{petId}'].get.responses[200].content['application/json'].schema = { $ref: 'https://schemas.example/pet.json' };
      const remoteFile = await write('remote.json', remote);
      await refused(remoteFile, `${remoteFile}: $ref "https://schemas.example/pet.json" at #/paths/~1pets~1{petId}/get/responses/200/content/application~1json/schema is on the network; the importer reads only local files: save it beside the description and refer to it by a relative path`);
      await write('secret.yaml', 'Pet:\n  type: object\n');
      const outside = petstore();
      outside.paths['/pets/{petId}'].get.responses[200].content['application/json'].schema = { $ref: '../secret.yaml#/Pet' };
      const outsideFile = await write('api/outside.json', outside);
      await refused(outsideFile, /outside\.json: \$ref to .*secret\.yaml, outside the description's folder .*; the importer reads only files beside the description\n$/);
      const limit = DESCRIPTION_LIMITS.bytes;
      DESCRIPTION_LIMITS.bytes = 1000;
      try {
        const big = await write('big.json', petstore());
        await refused(big, new RegExp(`^${big.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is \\d+\\.\\d MB; the importer reads descriptions of at most 0\\.0 MB\\n$`));
      } finally {
        DESCRIPTION_LIMITS.bytes = limit;
      }
    });
  });

  it('reads external $refs beside the description and imports circular schemas', async () => {
    const description = petstore({ schemas: { Node: { type: 'object', properties: { id: { type: 'string' }, child: { $ref: '#/components/schemas/Node' } } } } });
    description.paths['/pets/{petId}'].get.responses[200].content['application/json'].schema = { $ref: 'schemas/pet.yaml#/Pet' };
    Object.assign(description.paths, { '/nodes/{id}': { get: { operationId: 'getNode', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'A node', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } } } });
    await write('api/schemas/pet.yaml', 'Pet:\n  type: object\n  properties:\n    id: { type: string }\n    name: { type: string, example: Rex }\n');
    const outcome = await imported(await write('api/pets.json', description));
    expect(outcome.stderr).to.equal('');
    expect(outcome.exitCode).to.equal(0);
    const lines: string[] = [];
    expect(await runDefinitionTests(defs, { write: (l) => lines.push(l) })).to.deep.include({ failed: 0 });
  });

  it('converts Swagger 2.0, keeping the fields of a body and of form fields given by $ref', async () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'Legacy', version: '1' },
      host: 'legacy.example',
      basePath: '/api',
      schemes: ['https'],
      securityDefinitions: { basic: { type: 'basic' } },
      security: [{ basic: [] }],
      parameters: { thing: { in: 'body', name: 'body', required: true, schema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } } },
      paths: { '/things': { post: { operationId: 'createThing', consumes: ['application/json'], parameters: [{ $ref: '#/parameters/thing' }], responses: { 201: { description: 'Created', schema: { type: 'object', properties: { id: { type: 'integer' } } } } } } } },
    };
    const outcome = await imported(await write('legacy.json', swagger), 'legacy');
    expect(outcome.stderr).to.equal('');
    expect(outcome.stdout).to.contain('(Swagger 2.0, 2.0)');
    const create = parse(await fs.readFile(path.join(defs, 'legacy/versions/draft/actions/create-thing.yaml'), 'utf8'));
    expect(create.arguments).to.deep.equal([{ key: 'title', dataType: 'String', location: 'Body', required: true }]);
    const api = parse(await fs.readFile(path.join(defs, 'legacy/versions/draft/api.yaml'), 'utf8'));
    expect(api.baseUrl).to.equal('https://legacy.example/api');
  });

  describe('re-import into an existing app', () => {
    it('writes a new draft, prints npm run diff of it against the published version, and leaves the published version as it was', async () => {
      const first = await imported(await write('v1.json', petstore()), 'pets', { version: 1 });
      expect(first.exitCode).to.equal(0);
      expect(parse(await fs.readFile(path.join(defs, 'pets/app.yaml'), 'utf8')).published).to.equal(1);
      // A hand edit of the published version.
      const getFile = path.join(defs, 'pets/versions/1/actions/get-pet.yaml');
      await fs.writeFile(getFile, (await fs.readFile(getFile, 'utf8')).replace('name: Get a pet', 'name: Get one pet'));
      const before = new Map(await Promise.all((await listing(path.join(defs, 'pets'))).map(async (f) => [f, await fs.readFile(path.join(defs, 'pets', f), 'utf8')] as const)));

      const newer = petstore({ info: { version: '2.0.0' } });
      delete (newer.paths['/pets/{petId}'] as Record<string, unknown>).delete;
      newer.paths['/pets'].get.parameters.push({ name: 'species', in: 'query', required: true, schema: { type: 'string' } } as never);
      const again = await imported(await write('v2.json', newer), 'pets');
      expect(again.stderr).to.equal('');
      expect(again.exitCode).to.equal(0);
      expect(again.stdout).to.contain('into definitions/pets/versions/draft:');
      expect(again.stdout).to.contain('What changed against version 1 (npm run diff -- definitions/pets@1 definitions/pets@draft):');
      expect(again.stdout).to.contain('| **breaking** | action delete-pet | removed |');
      expect(again.stdout).to.contain('| **breaking** | action list-pets, argument species | added, required without a default |');
      expect(again.stdout).to.contain('| compatible | action get-pet | name Get one pet → Get a pet |');
      for (const [file, text] of before) expect(await fs.readFile(path.join(defs, 'pets', file), 'utf8'), file).to.equal(text);

      const diff = await runScript('diff.ts', ['definitions/pets@1', 'definitions/pets@draft'], { cwd: tmp.dir });
      expect(again.stdout).to.contain(diff.stdout);

      const third = await imported(await write('v3.json', newer), 'pets');
      expect(third.exitCode).to.equal(2);
      expect(third.stderr).to.match(/definitions\/pets\/versions\/draft exists: a re-import writes a new version and never overwrites one \(hand edits would be lost\); remove it, or give --version <n> for a new numbered version\n$/);
      const numbered = await imported(await write('v3.json', newer), 'pets', { version: 2 });
      expect(numbered.exitCode).to.equal(0);
      expect(parse(await fs.readFile(path.join(defs, 'pets/app.yaml'), 'utf8')).published).to.equal(1);
      expect((await loadDefinitions(defs)).ok).to.equal(true);
    });
  });

  it('refuses a usage error with the usage line, exit code 2', async () => {
    const run = await runScript('import.ts', ['pets.json'], { cwd: tmp.dir });
    expect(run.code).to.equal(2);
    expect(run.stderr.split('\n')[0]).to.equal('--app is required');
    expect(run.stderr.split('\n')[1]).to.match(/^usage: npm run import -- --app <slug> /);
  });
});
