import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { runImport } from '../../../engine/authoring/import/run-import.ts';
import { tempDir } from '../../support/definition-fixtures.ts';

/**
 * A description whose schema nests deeper than the converters' stacks reach
 * is refused in the importer's words, like any bad input (one line, exit
 * code 2, nothing written). Converting OpenAPI 3.0 to 3.1 answered the
 * runtime's own "Maximum call stack size exceeded", which names no rule.
 */
describe('npm run import: a schema nested too deeply', function () {
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('import-deep-');
  });
  afterEach(() => tmp.remove());

  for (const [openapi, words] of [
    ['3.0.3', 'is nested too deeply to convert from OpenAPI 3.0 to OpenAPI 3.1'],
    ['3.1.0', 'is nested too deeply to resolve'],
  ] as const) {
    it(`OpenAPI ${openapi}: "${words}", exit code 2, nothing written`, async () => {
      // Written as text: JSON.stringify of a value this deep would overflow this stack first.
      const schema = `${'{"type":"object","properties":{"a":'.repeat(3_000)}{"type":"string"}${'}}'.repeat(3_000)}`;
      const description = {
        openapi,
        info: { title: 'Deep', version: '1' },
        servers: [{ url: 'https://api.deep.example' }],
        paths: { '/a': { post: { operationId: 'deep', requestBody: { content: { 'application/json': { schema: 'SCHEMA' } } }, responses: { 200: { description: 'ok' } } } } },
      };
      const file = path.join(tmp.dir, 'deep.json');
      await fs.writeFile(file, JSON.stringify(description).replace('"SCHEMA"', schema));
      const defs = path.join(tmp.dir, 'definitions');
      const outcome = await runImport(file, { dir: defs, slug: 'deep', cwd: tmp.dir });
      expect(outcome.exitCode).to.equal(2);
      expect(outcome.stderr).to.equal(`${file} ${words}\n`);
      expect(await fs.readdir(tmp.dir)).to.deep.equal(['deep.json']);
    });
  }
});
