import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { runImport } from '../../../engine/authoring/import/run-import.ts';
import { runDefinitionTests } from '../../../engine/authoring/definition-tests.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { tempDir } from '../../support/definition-fixtures.ts';

/**
 * Paths whose literal text a URL carries percent-encoded: a space (`/a b/{x}`)
 * made an action path the loader refuses (`SCHEMA_PATTERN`, and the import
 * said "a bug of the importer" and wrote nothing, for one odd path among
 * many); a letter beyond ASCII (`/ünïcode/{x}`) made a case expecting the
 * URL unencoded where the engine sends it encoded, so the import's own case
 * failed. Each literal is written as the engine sends it.
 */
describe('npm run import: path text a URL encodes', function () {
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('import-paths-');
  });
  afterEach(() => tmp.remove());

  const get = (operationId: string) => ({ get: { operationId, parameters: [{ name: 'x', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } });

  it('writes a space, a non-ASCII letter and an escape the description already has as the engine sends them, and every case passes', async () => {
    const description = {
      openapi: '3.0.3',
      info: { title: 'Odd paths', version: '1' },
      servers: [{ url: 'https://api.odd.example/v1' }],
      paths: { '/a b/{x}': get('spaced'), '/ünïcode/{x}': get('unicode'), '/c%20d/{x}': get('escaped') },
    };
    const file = path.join(tmp.dir, 'odd.json');
    await fs.writeFile(file, JSON.stringify(description));
    const defs = path.join(tmp.dir, 'definitions');
    const outcome = await runImport(file, { dir: defs, slug: 'odd', cwd: tmp.dir });
    expect(outcome.stderr).to.equal('');
    expect(outcome.exitCode).to.equal(0);
    expect(outcome.stdout).to.contain('3 actions with 3 offline cases');
    const actions = path.join(defs, 'odd/versions/draft/actions');
    const pathOf = async (id: string) => (parse(await fs.readFile(path.join(actions, `${id}.yaml`), 'utf8')) as { path: string }).path;
    expect(await pathOf('spaced')).to.equal('/a%20b/:x');
    expect(await pathOf('unicode')).to.equal('/%C3%BCn%C3%AFcode/:x');
    expect(await pathOf('escaped')).to.equal('/c%20d/:x');
    expect((await loadDefinitions(defs)).ok).to.equal(true);
    const lines: string[] = [];
    expect(await runDefinitionTests(defs, { write: (l) => lines.push(l) }), lines.join('\n')).to.deep.include({ passed: 3, failed: 0 });
  });
});
