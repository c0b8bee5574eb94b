import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { runImport } from '../../../engine/authoring/import/run-import.ts';
import { tempDir } from '../../support/definition-fixtures.ts';
import { ROOT } from '../run-script.ts';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const DESCRIPTION = [
  'openapi: 3.0.3',
  'info: { title: "Caf\u00e9 API", version: "1" }',
  'servers: [{ url: "https://api.cafe.example" }]',
  'paths:',
  '  /menu:',
  '    get: { operationId: getMenu, responses: { "200": { description: ok } } }',
  '',
].join('\n');

/**
 * A description the importer cannot read as text is refused as the other
 * authoring commands refuse such a definition file: FILE_UNREADABLE, located,
 * exit code 2, nothing written. A Latin-1 description was read with U+FFFD in
 * place of its letters and imported without a word (the app's name became
 * "Caf\uFFFD API"); a FIFO was said to be "no such file".
 */
describe('npm run import: a description that is not a file of UTF-8 text', function () {
  this.timeout(60_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  let defs: string;
  beforeEach(async () => {
    tmp = await tempDir('import-unreadable-');
    defs = path.join(tmp.dir, 'definitions');
  });
  afterEach(() => tmp.remove());

  const refused = async (file: string, line: string) => {
    const outcome = await runImport(file, { dir: defs, slug: 'cafe', cwd: tmp.dir });
    expect(outcome.stderr).to.equal(`${line}\n`);
    expect(outcome).to.deep.include({ exitCode: 2, stdout: '' });
    expect(await fs.readdir(defs).catch(() => [])).to.deep.equal([]);
  };

  it('Latin-1: FILE_UNREADABLE at its first byte that is not UTF-8, with its line, column and byte offset', async () => {
    const file = path.join(tmp.dir, 'cafe.yaml');
    await fs.writeFile(file, Buffer.from(DESCRIPTION, 'latin1'));
    await refused(file, `${file}:2:20 FILE_UNREADABLE the file is not UTF-8 text: byte 0xE9 at line 2, column 20 (byte offset 34); save it as UTF-8`);
  });

  it('UTF-16: said to start as UTF-16 does', async () => {
    const file = path.join(tmp.dir, 'cafe.json');
    await fs.writeFile(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"openapi":"3.0.3"}', 'utf16le')]));
    await refused(file, `${file}:1:1 FILE_UNREADABLE the file is not UTF-8 text: byte 0xFF at line 1, column 1 (byte offset 0; it starts as UTF-16 does); save it as UTF-8`);
  });

  it('a file a $ref pulls in that is Latin-1: FILE_UNREADABLE naming that file', async () => {
    await fs.writeFile(path.join(tmp.dir, 'menu.yaml'), Buffer.from('Menu:\n  description: "Plat du jour \u00e0 la carte"\n  type: object\n', 'latin1'));
    const file = path.join(tmp.dir, 'cafe.yaml');
    await fs.writeFile(file, `${DESCRIPTION}components:\n  schemas:\n    Menu: { $ref: "./menu.yaml#/Menu" }\n`);
    // A file a $ref names is shown relative to the process's folder, as the importer's other messages about it are.
    const menu = path.relative(process.cwd(), path.join(tmp.dir, 'menu.yaml'));
    await refused(file, `${menu}:2:30 FILE_UNREADABLE the file is not UTF-8 text: byte 0xE0 at line 2, column 30 (byte offset 35); save it as UTF-8`);
  });

  it('a FIFO or a folder: FILE_UNREADABLE, not a regular file, not "no such file"', async () => {
    const fifo = path.join(tmp.dir, 'cafe.fifo');
    execFileSync('mkfifo', [fifo]);
    await refused(fifo, `${fifo}:1:1 FILE_UNREADABLE not a regular file (a FIFO): a description must be a file of JSON or YAML text`);
    const folder = path.join(tmp.dir, 'cafe');
    await fs.mkdir(folder);
    await refused(folder, `${folder}:1:1 FILE_UNREADABLE not a regular file (a folder): a description must be a file of JSON or YAML text`);
    await refused(path.join(tmp.dir, 'nothing.yaml'), `${path.join(tmp.dir, 'nothing.yaml')}: no such file`);
  });

  it('npm run import of a FIFO with no writer exits 2 at once: it never waits for one', async () => {
    const fifo = path.join(tmp.dir, 'cafe.fifo');
    execFileSync('mkfifo', [fifo]);
    const outcome = await new Promise<{ code: number | string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', TSX, path.join(ROOT, 'scripts/import.ts'), 'cafe.fifo', '--app', 'cafe'], { cwd: tmp.dir, timeout: 30_000, killSignal: 'SIGKILL' }, (error, _stdout, stderr) => {
        resolve({ code: error ? (error.killed ? 'killed after 30 s' : Number(error.code ?? 1)) : 0, stderr });
      });
    });
    const shown = path.join(await fs.realpath(tmp.dir), 'cafe.fifo');
    expect(outcome).to.deep.equal({ code: 2, stderr: `${shown}:1:1 FILE_UNREADABLE not a regular file (a FIFO): a description must be a file of JSON or YAML text\n` });
  });
});
