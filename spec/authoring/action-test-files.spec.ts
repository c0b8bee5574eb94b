import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../engine/definitions/loader.ts';
import { formatProblem } from '../../engine/definitions/problems.ts';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';

/** An offline test case file as an author writes it beside an action. */
const CASES = `cases:
  - name: lists the first page
    arguments: { listId: "7" }
    response: { status: 200, body: { contacts: [] } }
    expect: { success: true, data: [] }
`;

describe('offline test case files beside actions', () => {
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('test-files-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  it('are skipped by the loader: actions/<action>.test.yaml is not an action', async () => {
    await fs.writeFile(path.join(tmp.dir, 'acme/versions/1/actions/list-contacts.test.yaml'), CASES);
    await fs.writeFile(path.join(tmp.dir, 'acme/versions/1/actions/list-lists.test.yml'), CASES);
    const result = await loadDefinitions(tmp.dir);
    expect(result.problems.map((p) => formatProblem(p))).to.deep.equal([]);
    expect(result.ok).to.equal(true);
    expect(result.stats.files).to.equal(6);
  });

  it('are still unexpected anywhere else in the layout', async () => {
    await fs.writeFile(path.join(tmp.dir, 'acme/versions/1/list-contacts.test.yaml'), CASES);
    const result = await loadDefinitions(tmp.dir);
    expect(result.problems.map((p) => `${p.file} ${p.code}`)).to.deep.equal(['acme/versions/1/list-contacts.test.yaml FILE_UNEXPECTED']);
  });
});
