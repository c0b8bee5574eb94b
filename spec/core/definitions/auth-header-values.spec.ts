import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/**
 * What an auth writes into a header as it is (an ApiKey's header name and
 * the text of its `value` around the placeholders, an OAuth token's
 * `prefix`) is held at load to what HTTP can send. `value: “Token {{apiKey}}”`
 * (an editor's quotes) loaded, connections were created, and every run
 * answered 400 VALIDATION_ERROR `headers.x-key: must be Latin-1 text`,
 * blaming the caller.
 */
describe('definitions: an auth header HTTP cannot send', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  const AUTH = 'acme/versions/1/auths/api-key.yaml';
  beforeEach(async () => {
    tmp = await tempDir('defs-auth-headers-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  const edit = async (from: string, to: string) => {
    const file = path.join(tmp.dir, AUTH);
    const text = await fs.readFile(file, 'utf8');
    expect(text).to.include(from);
    await fs.writeFile(file, text.replace(from, to));
    return (await loadDefinitions(tmp.dir)).problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.code} ${p.message}`);
  };

  it('an ApiKey value with typographic quotes: SCHEMA_PATTERN at the value', async () => {
    expect(await edit('value: Bearer {{apiKey}}', 'value: \u201cToken {{apiKey}}\u201d')).to.deep.equal([
      `${AUTH}:6:8 SCHEMA_PATTERN value "\u201cToken {{apiKey}}\u201d" is sent in header Authorization, so it must be one line of Latin-1 text: no line break or NUL, and no character beyond U+00FF (typographic quotes or a euro sign), which HTTP cannot send`,
    ]);
  });

  it('an ApiKey header name that is not an HTTP token: SCHEMA_PATTERN at parameterName', async () => {
    expect(await edit('parameterName: Authorization', 'parameterName: X Api Key')).to.deep.equal([
      `${AUTH}:5:16 SCHEMA_PATTERN parameterName "X Api Key" must be an HTTP header name (letters, digits and !#$%&'*+.^_\`|~- only) when in is Header`,
    ]);
  });

  it('a query ApiKey may hold any text; a Latin-1 header value loads', async () => {
    expect(await edit('in: Header\nparameterName: Authorization\nvalue: Bearer {{apiKey}}', 'in: Query\nparameterName: api key\nvalue: \u201c{{apiKey}}\u201d')).to.deep.equal([]);
  });
});
