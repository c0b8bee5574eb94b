import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/** Loads the valid folder with acme's api.yaml baseUrl (and originVariables) replaced; answers the URL problems. */
async function problemsFor(baseUrl: string, originVariables?: string[]): Promise<string[]> {
  const tmp = await tempDir('defs-url-');
  try {
    await copyValid(tmp.dir);
    const file = path.join(tmp.dir, 'acme/versions/1/api.yaml');
    const api = (await fs.readFile(file, 'utf8')).replace(/^baseUrl: .*$/m, `baseUrl: "${baseUrl}"${originVariables ? `\noriginVariables: [${originVariables.join(', ')}]` : ''}`);
    await fs.writeFile(file, api);
    const result = await loadDefinitions(tmp.dir);
    return result.problems.map((p) => `${p.code} ${p.message}`);
  } finally {
    await tmp.remove();
  }
}

describe('URL templates checked at load: a variable may not choose where a request goes', () => {
  for (const [baseUrl, why] of [
    ['https://{{region}}.acme.example/api', 'a whole label before a fixed two-label domain'],
    ['https://api-{{region}}.acme.example/api', 'part of a label before a fixed domain'],
    ['https://{{region}}.acme.example:8443/api/{{region}}?r={{region}}', 'path and query anywhere'],
  ]) {
    it(`accepts ${baseUrl} (${why})`, async () => {
      expect(await problemsFor(baseUrl!)).to.deep.equal([]);
    });
  }

  for (const [baseUrl, why] of [
    ['https://{{region}}/api', 'the whole host'],
    ['https://{{region}}.example/api', 'a label before a bare top-level domain'],
    ['https://api.acme.example:{{region}}/api', 'the port'],
    ['https://{{region}}@api.acme.example/api', 'the user info'],
    ['https://api.{{region}}/api', 'the domain itself'],
    ['{{region}}/api', 'the whole origin, undeclared'],
  ]) {
    it(`refuses ${baseUrl} (${why}) with URL_VARIABLE_IN_AUTHORITY`, async () => {
      const problems = await problemsFor(baseUrl!);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^URL_VARIABLE_IN_AUTHORITY baseUrl: \{\{region\}\} /);
    });
  }

  it('accepts a whole-origin placeholder declared in originVariables', async () => {
    expect(await problemsFor('{{region}}/api', ['region'])).to.deep.equal([]);
  });
});
