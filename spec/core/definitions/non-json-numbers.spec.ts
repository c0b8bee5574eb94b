import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/**
 * YAML's `.nan` and `.inf` (and a number too large for a double, read as
 * infinite) are numbers to JavaScript but not to JSON, so the schema refuses
 * them where a number is allowed. The message said the value "must be a
 * string or number ..., not a number": it named no rule an author could act
 * on. It names the value for what it is.
 */
describe('definitions: a number JSON has not (.nan, .inf, 1e400)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-nan-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  for (const [written, named] of [
    ['.nan', 'NaN (.nan: JSON has no such number)'],
    ['.inf', 'an infinite number (.inf, or one too large for JSON)'],
    ['1e400', 'an infinite number (.inf, or one too large for JSON)'],
  ]) {
    it(`default: ${written} is SCHEMA_TYPE ... not ${named}`, async () => {
      const file = path.join(tmp.dir, 'acme/versions/1/actions/list-contacts.yaml');
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('    default: 50\n', `    default: ${written}\n`));
      const result = await loadDefinitions(tmp.dir);
      expect(result.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.code} ${p.message}`)).to.deep.equal([
        `acme/versions/1/actions/list-contacts.yaml:22:14 SCHEMA_TYPE arguments[1].default must be a string or number or boolean or object or array, not ${named}`,
      ]);
    });
  }
});
