import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { VALID, copyValid, tempDir } from '../../support/definition-fixtures.ts';

/**
 * A Header argument's default is held at load to what a header can carry,
 * like any default to its argument's rules (docs/arguments.md, "`default`":
 * "a caller is never refused for a value they did not send"). A hidden
 * header with typographic quotes in its default loaded, and every run then
 * answered 400 VALIDATION_ERROR `note: is sent in header X-Note, so it must
 * be Latin-1 text`, for a value no caller could send or change.
 */
describe('definitions: a Header argument default a header cannot carry', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-header-defaults-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  const withHeader = async (lines: string) => {
    const file = path.join(tmp.dir, 'acme/versions/1/actions/list-lists.yaml');
    const text = await fs.readFile(path.join(VALID, 'acme/versions/1/actions/list-lists.yaml'), 'utf8');
    await fs.writeFile(file, text.replace('path: /lists\n', `path: /lists\narguments:\n  - key: note\n    externalKey: X-Note\n    dataType: String\n    location: Header\n${lines}`));
    return loadDefinitions(tmp.dir);
  };
  const located = (p: { file: string; line: number; column: number; code: string; message: string }) => `${p.file}:${p.line}:${p.column} ${p.code} ${p.message}`;

  it('typographic quotes: ARG_DEFAULT_RULE at the default', async () => {
    const result = await withHeader('    hidden: true\n    default: \u201cacme\u201d\n');
    expect(result.problems.map(located)).to.deep.equal([
      'acme/versions/1/actions/list-lists.yaml:13:14 ARG_DEFAULT_RULE argument "note": default "\u201cacme\u201d" is sent in header X-Note, so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign) (rule header)',
    ]);
  });

  it('a line break: ARG_DEFAULT_RULE at the default', async () => {
    const result = await withHeader('    default: "a\\r\\nX-Injected: 1"\n');
    expect(result.problems.map(located)).to.deep.equal([
      'acme/versions/1/actions/list-lists.yaml:12:14 ARG_DEFAULT_RULE argument "note": default "a\\r\\nX-Injected: 1" is sent in header X-Note, so it must not contain line breaks or other control characters (rule header)',
    ]);
  });

  it('a Latin-1 default, or one a mapper rewrites, loads', async () => {
    expect((await withHeader('    default: caf\u00e9\n')).problems).to.deep.equal([]);
    expect((await withHeader('    default: \u201cacme\u201d\n    mapper: $replace(value, /[\u201c\u201d]/, \'"\')\n')).problems).to.deep.equal([]);
  });
});
