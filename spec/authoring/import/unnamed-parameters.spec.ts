import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { runImport } from '../../../engine/authoring/import/run-import.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { tempDir } from '../../support/definition-fixtures.ts';

/**
 * A query or header parameter named "" (the empty string). A query parameter
 * is sent under its name and a header is its name, and an argument's
 * `externalKey` may not be empty (schemas/argument.schema.json): no argument
 * can send it. The import dropped it without a word, and an operation that
 * requires it became an action that never sends it. Now a required one skips
 * the operation and an optional one is dropped, each said in the report, the
 * operation and the parameter named (as a cookie parameter is).
 */
describe('npm run import: a parameter named ""', function () {
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('import-unnamed-');
  });
  afterEach(() => tmp.remove());

  const operation = (operationId: string, parameters: object[]) => ({ get: { operationId, parameters, responses: { 200: { description: 'ok' } } } });

  it('skips an operation that requires one, drops an optional one with a note, and names both', async () => {
    const description = {
      openapi: '3.0.3',
      info: { title: 'Unnamed', version: '1' },
      servers: [{ url: 'https://api.unnamed.example' }],
      paths: {
        '/things': operation('listThings', [
          { name: '', in: 'query', schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ]),
        '/other': operation('getOther', [{ name: '', in: 'query', required: true, schema: { type: 'string' } }]),
        '/headed': operation('getHeaded', [{ name: '', in: 'header', schema: { type: 'string' } }]),
      },
    };
    const file = path.join(tmp.dir, 'unnamed.json');
    await fs.writeFile(file, JSON.stringify(description));
    const defs = path.join(tmp.dir, 'definitions');
    const outcome = await runImport(file, { dir: defs, slug: 'unnamed', cwd: tmp.dir });
    expect(outcome.stderr).to.equal('');
    expect(outcome.exitCode).to.equal(0);
    expect(outcome.stdout).to.contain('  2 actions with 2 offline cases');
    expect(outcome.stdout).to.contain('  1 skipped\n');
    expect(outcome.stdout).to.contain(
      '\nSkipped:\n  GET /other (getOther): it requires the query parameter named "" (the empty string), which no argument can send: a query parameter is sent under its name, and an argument\'s externalKey may not be empty\n',
    );
    expect(outcome.stdout).to.contain('  GET /things (listThings): query parameter named "" (the empty string) dropped: it is sent under its name, and an argument\'s externalKey may not be empty\n');
    expect(outcome.stdout).to.contain('  GET /headed (getHeaded): header parameter named "" (the empty string) dropped: a header is its name, and an argument\'s externalKey may not be empty\n');
    const things = parse(await fs.readFile(path.join(defs, 'unnamed/versions/draft/actions/list-things.yaml'), 'utf8'));
    expect(things.arguments).to.deep.equal([{ key: 'q', dataType: 'String', location: 'Query' }]);
    expect((await loadDefinitions(defs)).ok).to.equal(true);
  });

  it('says so of a parameter without a name or without an in, which OpenAPI requires of each, rather than drop it without a word', async () => {
    const description = {
      openapi: '3.0.3',
      info: { title: 'Unnamed', version: '1' },
      servers: [{ url: 'https://api.unnamed.example' }],
      paths: {
        '/things': {
          parameters: [{ in: 'header', schema: { type: 'string' } }],
          ...operation('listThings', [
            { in: 'query', schema: { type: 'string' } },
            { name: 'limit', schema: { type: 'integer' } },
            { name: 'q', in: 'query', schema: { type: 'string' } },
          ]),
        },
      },
    };
    const file = path.join(tmp.dir, 'unnamed.json');
    await fs.writeFile(file, JSON.stringify(description));
    const defs = path.join(tmp.dir, 'definitions');
    const outcome = await runImport(file, { dir: defs, slug: 'unnamed', cwd: tmp.dir });
    expect(outcome.exitCode).to.equal(0);
    const dropped = ', which OpenAPI requires of every parameter: dropped, as no argument can be made of it\n';
    expect(outcome.stdout).to.contain(`  GET /things (listThings): the path item's parameter 1 (in header) has no name${dropped}`);
    expect(outcome.stdout).to.contain(`  GET /things (listThings): the operation's parameter 1 (in query) has no name${dropped}`);
    expect(outcome.stdout).to.contain(`  GET /things (listThings): the operation's parameter 2 ("limit") has no in${dropped}`);
    const things = parse(await fs.readFile(path.join(defs, 'unnamed/versions/draft/actions/list-things.yaml'), 'utf8'));
    expect(things.arguments).to.deep.equal([{ key: 'q', dataType: 'String', location: 'Query' }]);
  });
});
