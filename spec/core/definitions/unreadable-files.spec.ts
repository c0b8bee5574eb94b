import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { MAX_DEFINITION_FILE_BYTES } from '../../../engine/core/definitions/source-files.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/**
 * Definition files the loader cannot take as YAML text: a name that points at
 * a FIFO (reading it waited forever: `npm run validate` hung, a start never
 * became ready, and a hot reload stayed stuck, so no later edit was ever
 * served), a file of hundreds of megabytes (its analysis ran out of memory and
 * took the process, a serving gateway included, down with it), and a file
 * that is not UTF-8 (Latin-1 was loaded with U+FFFD in place of its letters,
 * UTF-16 was read as one string). Each is a FILE_UNREADABLE problem of its
 * file, at the line and column where it stops being UTF-8; the last good
 * snapshot keeps serving.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const BAD = 'acme/versions/1/actions/bad.yaml';
const LIST_LISTS = 'acme/versions/1/actions/list-lists.yaml';

const located = (p: { file: string; line: number; column: number; code: string }) => `${p.file}:${p.line}:${p.column} ${p.code}`;

/** `npm run validate -- <dir>`, stopped after 30 s (a hang is a failure, not a stuck run). */
function validate(dir: string): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TSX, path.join(ROOT, 'scripts/validate.ts'), dir], { cwd: ROOT, timeout: 30_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.killed ? 'killed after 30 s' : Number(error.code ?? 1)) : 0, stdout, stderr });
    });
  });
}

/** Fails instead of waiting forever. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);
}

describe('definition files that are not YAML text', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-unreadable-');
    await copyValid(path.join(tmp.dir, 'defs'));
  });
  afterEach(() => tmp.remove());
  const defs = () => path.join(tmp.dir, 'defs');
  const fifoAt = async (file: string) => {
    const fifo = path.join(tmp.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await fs.symlink(fifo, path.join(defs(), file));
  };

  it('validate: a name that points at a FIFO is FILE_UNREADABLE, not a hang', async () => {
    await fifoAt(BAD);
    const { code, stdout } = await validate(defs());
    expect(code).to.equal(1);
    expect(stdout).to.include(`${BAD}:1:1 FILE_UNREADABLE not a regular file (a FIFO): a definition file must be a file of YAML text\n`);
  });

  it(`validate: a file of 200 MB is FILE_UNREADABLE (at most ${MAX_DEFINITION_FILE_BYTES} bytes), not a crash`, async () => {
    const handle = await fs.open(path.join(defs(), BAD), 'w');
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    await handle.write('id: bad\ndescription: "');
    for (let i = 0; i < 200; i++) await handle.write(chunk);
    await handle.write('"\n');
    await handle.close();
    const { code, stdout } = await validate(defs());
    expect(code).to.equal(1);
    expect(stdout).to.match(new RegExp(`${BAD}:1:1 FILE_UNREADABLE the file is \\d+ bytes; a definition file may have at most ${MAX_DEFINITION_FILE_BYTES} bytes \\(1 MB\\): split it, or shorten it\\n`));
  });

  it('validate: a Latin-1 letter is FILE_UNREADABLE at its line and column; UTF-16 at 1:1', async () => {
    const file = path.join(defs(), LIST_LISTS);
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, Buffer.from(text.replace('name: List lists', 'name: List l\u00e9sts'), 'latin1'));
    await fs.writeFile(path.join(defs(), BAD), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id: bad\n', 'utf16le')]));
    const { code, stdout } = await validate(defs());
    expect(code).to.equal(1);
    const line = text.split('\n').findIndex((l) => l.startsWith('name: List lists')) + 1;
    const shown = path.relative(ROOT, defs());
    expect(stdout.split('\n').filter((l) => l.includes('FILE_UNREADABLE'))).to.deep.equal([
      `${shown}/${BAD}:1:1 FILE_UNREADABLE the file is not UTF-8 text: byte 0xFF at line 1, column 1 (it starts as UTF-16 does); save it as UTF-8`,
      `${shown}/${LIST_LISTS}:${line}:13 FILE_UNREADABLE the file is not UTF-8 text: byte 0xE9 at line ${line}, column 13; save it as UTF-8`,
    ]);
  });

  for (const changedOnly of [true, false]) {
    it(`a hot reload (${changedOnly ? 'the changed file' : 'every file'}) refuses a FIFO and a file over the limit, keeps serving, and takes the next edit`, async () => {
      const registry = new DefinitionsRegistry(defs(), createLogger('silent'));
      expect((await registry.reload('start')).ok).to.equal(true);
      const good = registry.current();
      const changed = (file: string) => (changedOnly ? [path.join(defs(), file)] : undefined);

      await fifoAt(BAD);
      const fifo = await within(10_000, registry.reload('change', changed(BAD)));
      expect(fifo.problems.map(located)).to.deep.equal([`${BAD}:1:1 FILE_UNREADABLE`]);
      expect(registry.current()).to.equal(good);

      await fs.rm(path.join(defs(), BAD));
      await fs.writeFile(path.join(defs(), BAD), `id: bad\ndescription: "${'a'.repeat(MAX_DEFINITION_FILE_BYTES)}"\n`);
      const large = await within(10_000, registry.reload('change', changed(BAD)));
      expect(large.problems.map(located)).to.deep.equal([`${BAD}:1:1 FILE_UNREADABLE`]);
      expect(registry.current()).to.equal(good);

      await fs.rm(path.join(defs(), BAD));
      const file = path.join(defs(), LIST_LISTS);
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: Renamed'));
      const fixed = await within(10_000, registry.reload('change', changedOnly ? [path.join(defs(), BAD), file] : undefined));
      expect(fixed.ok).to.equal(true);
      expect(registry.current().apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name).to.equal('Renamed');
    });
  }
});
