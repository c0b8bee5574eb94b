import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { DefinitionsLoader, loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { PROBLEM_CODES, WARNING_CODES, type ProblemCode } from '../../../engine/core/definitions/problems.ts';
import { INVALID, VALID, copyValid, materialiseCase, tempDir } from '../../support/definition-fixtures.ts';

const located = (p: { file: string; line: number; column: number; code: string }) => `${p.file}:${p.line}:${p.column} ${p.code}`;

/**
 * One case per problem code: spec/fixtures/definitions/invalid/<CODE>/files/
 * is laid over the valid folder, and expected.yaml is the exact list of
 * `<file>:<line>:<column> <CODE>` the load must report.
 */
describe('definition problems, one fixture per code', () => {
  const cases = fs.readdirSync(INVALID).sort();
  const covered = new Set<string>(['DEFINITIONS_DIR_MISSING', 'FILE_UNREADABLE', 'PROBLEMS_OMITTED', 'ANALYSIS_FAILED']);

  it('starts from a valid folder', async () => {
    const result = await loadDefinitions(VALID);
    expect(result.problems.map(located)).to.deep.equal([]);
  });

  for (const code of cases) {
    covered.add(code);
    it(`${code}: reported at the expected file, line and column`, async () => {
      const expected = parse(await fsp.readFile(path.join(INVALID, code, 'expected.yaml'), 'utf8')) as { problems: string[] };
      const tmp = await tempDir('defs-case-');
      try {
        await materialiseCase(path.join(INVALID, code), tmp.dir);
        const result = await loadDefinitions(tmp.dir);
        // A warning code's case still loads: its findings are the warnings, and nothing refuses the folder.
        const warns = WARNING_CODES.has(code as ProblemCode);
        expect(result.ok).to.equal(warns);
        expect((warns ? result.warnings : result.problems).map(located)).to.deep.equal(expected.problems);
        expect(expected.problems.every((p) => p.endsWith(` ${code}`)), 'the case shows its own code only').to.equal(true);
      } finally {
        await tmp.remove();
      }
    });
  }

  it('DEFINITIONS_DIR_MISSING: a folder that does not exist', async () => {
    const result = await loadDefinitions(path.join(INVALID, 'no-such-folder'));
    expect(result.problems.map(located)).to.deep.equal(['.:1:1 DEFINITIONS_DIR_MISSING']);
  });

  it('FILE_UNREADABLE: a definition name that points at a folder', async () => {
    const tmp = await tempDir('defs-unreadable-');
    try {
      await copyValid(tmp.dir);
      await fsp.symlink(path.join(tmp.dir, 'acme/versions'), path.join(tmp.dir, 'acme/versions/1/actions/linked.yaml'));
      const result = await loadDefinitions(tmp.dir);
      expect(result.problems.map(located)).to.deep.equal(['acme/versions/1/actions/linked.yaml:1:1 FILE_UNREADABLE']);
    } finally {
      await tmp.remove();
    }
  });

  it('PROBLEMS_OMITTED: a file with more problems than are listed (its own fixture could not show its code alone)', async () => {
    const tmp = await tempDir('defs-omitted-');
    try {
      await copyValid(tmp.dir);
      const file = path.join(tmp.dir, 'acme/versions/1/actions/list-lists.yaml');
      const extra = Array.from({ length: 60 }, (_, i) => `unknown${i}: ${i}`).join('\n');
      await fsp.writeFile(file, `${await fsp.readFile(file, 'utf8')}${extra}\n`);
      const result = await loadDefinitions(tmp.dir);
      expect(result.problems.map(located)).to.deep.equal([
        ...Array.from({ length: 50 }, (_, i) => `acme/versions/1/actions/list-lists.yaml:${8 + i}:1 SCHEMA_UNKNOWN_PROPERTY`),
        'acme/versions/1/actions/list-lists.yaml:58:1 PROBLEMS_OMITTED',
      ]);
      expect(result.problems.at(-1)!.message).to.equal('10 more problems in this file are not listed; fix the 50 above first');
    } finally {
      await tmp.remove();
    }
  });

  it('ANALYSIS_FAILED: a file whose analysis throws (a source whose text cannot be read)', () => {
    const throwing = { file: 'acme/app.yaml', hash: '0'.repeat(64), get text(): string { throw new Error('unreadable'); } };
    const result = new DefinitionsLoader().load([throwing]);
    expect(result.problems.map(located)).to.deep.equal(['acme/app.yaml:1:1 ANALYSIS_FAILED']);
  });

  it('documents every code in docs/definitions.md', async () => {
    const guide = await fsp.readFile(path.join(VALID, '../../../../docs/definitions.md'), 'utf8');
    expect(Object.keys(PROBLEM_CODES).filter((code) => !guide.includes(`\`${code}\``))).to.deep.equal([]);
  });

  it('covers every code in PROBLEM_CODES', () => {
    const missing = (Object.keys(PROBLEM_CODES) as ProblemCode[]).filter((code) => !covered.has(code));
    expect(missing, 'codes without a fixture').to.deep.equal([]);
  });
});
