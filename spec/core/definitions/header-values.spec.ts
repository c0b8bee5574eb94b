import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/**
 * A header value written in a definition (api.yaml `headers`, an auth's
 * request headers) that HTTP cannot send, a line break, a NUL or a character
 * beyond Latin-1 (an editor's typographic quotes), is a located problem at
 * load. It loaded, and then every run of every action of the version
 * answered 400 VALIDATION_ERROR `headers.x-note: ...`: the caller was blamed
 * for a header it never sent and could not change.
 */
describe('definitions: a header value HTTP cannot send', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-header-values-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  const HINT = ' (one line of Latin-1 text: no line break or NUL, and no character beyond U+00FF such as typographic quotes or a euro sign, which HTTP cannot send)';

  for (const [what, written, shown] of [
    ['a line break', '"a\\r\\nX-Injected: 1"', '"a\\r\\nX-Injected: 1"'],
    ['a NUL', '"a\\0b"', '"a\\u0000b"'],
    ['typographic quotes', '\u201cacme\u201d', '"\u201cacme\u201d"'],
  ]) {
    it(`api.yaml headers with ${what}: SCHEMA_PATTERN at the value`, async () => {
      const file = path.join(tmp.dir, 'acme/versions/1/api.yaml');
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('  Accept: application/json\n', `  Accept: application/json\n  X-Note: ${written}\n`));
      const result = await loadDefinitions(tmp.dir);
      expect(result.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.code} ${p.message}`)).to.deep.equal([
        `acme/versions/1/api.yaml:4:11 SCHEMA_PATTERN headers.X-Note ${shown} must match ^[\\u0001-\\u0009\\u000b\\u000c\\u000e-\\u00ff]*$${HINT}`,
      ]);
    });
  }

  it('a placeholder, Latin-1 letters and tabs load as before', async () => {
    const file = path.join(tmp.dir, 'acme/versions/1/api.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('  Accept: application/json\n', '  Accept: application/json\n  X-Note: "caf\u00e9\\tna\u00efve {{region}}"\n'));
    expect((await loadDefinitions(tmp.dir)).problems).to.deep.equal([]);
  });
});
