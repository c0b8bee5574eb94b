import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../engine/core/definitions/loader.ts';
import { formatProblem } from '../../engine/core/definitions/problems.ts';
import { parseCaseFile } from '../../engine/authoring/case-file.ts';
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

  it('refuse an alias bomb in a case file as a located problem, and read one anchor used 100 times', () => {
    const bomb = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let level = 1; level < 9; level++) bomb.push(`a${level}: &a${level} [${Array(9).fill(`*a${level - 1}`).join(', ')}]`);
    const refused = parseCaseFile(`${bomb.join('\n')}\ncases: []\n`);
    if (refused.ok) throw new Error('an alias bomb was read');
    expect(refused.problems[0]).to.deep.include({ line: 6, column: 10 });
    expect(refused.problems[0]!.message).to.match(/^aliases expand this file to more than 100000 values/);
    const uses = Array.from({ length: 100 }, (_, i) => `  - name: case ${i}\n    response: *r\n    expect: { success: true }`);
    const uses100 = uses.map((use, i) => (i === 0 ? use.replace('*r', '&r { status: 200, body: {} }') : use));
    const hundred = parseCaseFile(`cases:\n${uses100.join('\n')}\n  - name: case 100\n    response: *r\n    expect: { success: true }\n`);
    expect(hundred.ok ? [] : hundred.problems.map((p) => p.message)).to.deep.equal([]);
  });
});
