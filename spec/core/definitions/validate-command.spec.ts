import { execFile } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import fs from 'node:fs/promises';
import { INVALID, copyValid, materialiseCase, tempDir } from '../../support/definition-fixtures.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** tsx by absolute URL: the command runs in a temporary folder, where a bare `tsx` would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `npm run validate -- <dir>` as CI and authors run it (the script itself, without npm's banner). */
function validate(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TSX, path.join(ROOT, 'scripts/validate.ts'), ...args], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('npm run validate', function () {
  this.timeout(30_000);

  it('passes on the bundled apps with a one-line summary', async () => {
    const { code, stdout } = await validate(ROOT);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^ok: definitions has \d+ apps, \d+ versions, \d+ actions in \d+ files \(hash [0-9a-f]{12}\)\n$/);
  });

  it('prints warnings (ENVELOPE_FLAG_NOT_BOOLEAN) as located lines marked (warning), counts them, and exits 0: they do not stop a load', async () => {
    const tmp = await tempDir('defs-cli-');
    try {
      const dir = path.join(tmp.dir, 'definitions');
      await materialiseCase(path.join(INVALID, 'ENVELOPE_FLAG_NOT_BOOLEAN'), dir);
      const { code, stdout } = await validate(tmp.dir, 'definitions');
      expect(code).to.equal(0);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.slice(0, 3).map((line) => line.replace(/ ENVELOPE_FLAG_NOT_BOOLEAN .*/, ''))).to.deep.equal([
        'definitions/acme/versions/1/actions/list-contacts.yaml:31:20',
        'definitions/acme/versions/1/actions/list-contacts.yaml:36:7',
        'definitions/acme/versions/1/actions/list-contacts.yaml:37:7',
      ]);
      expect(lines.slice(0, 3).every((line) => line.endsWith(' (warning)'))).to.equal(true);
      expect(lines[3]).to.match(/^ok: definitions has \d+ apps, .*; 3 warnings$/);
    } finally {
      await tmp.remove();
    }
  });

  it('says how to write a JSONata expression YAML misreads (unquoted `? … : …`): quote it, or use a block', async () => {
    const tmp = await tempDir('defs-cli-');
    try {
      const dir = path.join(tmp.dir, 'definitions');
      await copyValid(dir);
      const file = path.join(dir, 'acme/versions/1/actions/list-lists.yaml');
      await fs.writeFile(file, `${await fs.readFile(file, 'utf8')}pagination:\n  type: Cursor\n  location: Query\n  key: after\n  next: body.paging ? body.paging.next : undefined\n`);
      const { code, stdout } = await validate(tmp.dir, 'definitions');
      expect(code).to.equal(1);
      expect(stdout).to.equal(
        'definitions/acme/versions/1/actions/list-lists.yaml:12:9 YAML_SYNTAX Nested mappings are not allowed in compact mappings ' +
          "(if next is a JSONata expression, YAML read part of it as its own syntax: quote it, next: '…' with each ' inside doubled, or write it as a block, next: | with the expression on the next lines, indented)\n",
      );
    } finally {
      await tmp.remove();
    }
  });

  it('lists every problem as <file>:<line>:<column> <CODE> <message>, relative to the current folder, and exits 1', async () => {
    const tmp = await tempDir('defs-cli-');
    try {
      const dir = path.join(tmp.dir, 'definitions');
      await materialiseCase(path.join(INVALID, 'ARG_PARENT_MISSING'), dir);
      const { code, stdout, stderr } = await validate(tmp.dir, 'definitions');
      expect(code).to.equal(1);
      expect(stdout).to.equal(
        'definitions/acme/versions/1/actions/create-contact.yaml:19:13 ARG_PARENT_MISSING argument "country" names parent "adress", which does not exist\n',
      );
      expect(stderr).to.equal('1 problem in definitions (6 files)\n');
    } finally {
      await tmp.remove();
    }
  });

  it('prints an alias bomb and a file of 20,000 unknown keys as located problems, at most 50 a file and one counting the rest', async () => {
    const tmp = await tempDir('defs-cli-');
    try {
      const dir = path.join(tmp.dir, 'definitions');
      await copyValid(dir);
      const action = (id: string) => `id: ${id}\nslug: ${id}\nname: ${id}\noperation: list\nmethod: GET\npath: /lists\nresponse: '{ "success": true }'\n`;
      const bomb = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
      for (let level = 1; level < 9; level++) bomb.push(`a${level}: &a${level} [${Array(9).fill(`*a${level - 1}`).join(', ')}]`);
      await fs.writeFile(path.join(dir, 'acme/versions/1/actions/bomb.yaml'), `${action('bomb')}${bomb.join('\n')}\n`);
      const keys = Array.from({ length: 20_000 }, (_, i) => `unknown${i}: ${i}`).join('\n');
      await fs.writeFile(path.join(dir, 'acme/versions/1/actions/keys.yaml'), `${action('keys')}${keys}\n`);
      const { code, stdout, stderr } = await validate(tmp.dir, 'definitions');
      expect(code).to.equal(1);
      const lines = stdout.trimEnd().split('\n');
      expect(lines[0]).to.match(/^definitions\/acme\/versions\/1\/actions\/bomb\.yaml:13:10 YAML_ALIAS_LIMIT aliases expand this file to more than 100000 values/);
      expect(lines[1]).to.equal(
        'definitions/acme/versions/1/actions/keys.yaml:8:1 SCHEMA_UNKNOWN_PROPERTY property "unknown0" is not allowed in the action definition (allowed: id, slug, name, description, operation, method, path, arguments, idArgument, response, pagination)',
      );
      expect(lines.at(-1)).to.equal('definitions/acme/versions/1/actions/keys.yaml:58:1 PROBLEMS_OMITTED 19950 more problems in this file are not listed; fix the 50 above first');
      expect(lines).to.have.length(52);
      expect(stderr).to.equal('52 problems in definitions (8 files)\n');
    } finally {
      await tmp.remove();
    }
  });
});
