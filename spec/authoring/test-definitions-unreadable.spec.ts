import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { createApp } from '../../engine/authoring/create-app.ts';
import { tempDir } from '../support/definition-fixtures.ts';
import { ROOT } from './run-script.ts';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * A case file the runner cannot read as text is a failed case file, located,
 * like a malformed one: a name pointing at a FIFO made the command wait
 * forever, and a Latin-1 file was read with U+FFFD in place of its letters
 * (so a case could compare against text the author never wrote).
 */
describe('npm run test:definitions: a case file that is not text', function () {
  this.timeout(60_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  const CASES = 'definitions/acme-crm/versions/draft/actions/list-items.test.yaml';
  beforeEach(async () => {
    tmp = await tempDir('test-definitions-unreadable-');
    expect(await createApp(path.join(tmp.dir, 'definitions'), 'acme-crm')).to.deep.include({ ok: true });
  });
  afterEach(() => tmp.remove());

  /** `npm run test:definitions`, killed after 30 s: a hang is a failure, not a stuck run. */
  const run = () =>
    new Promise<{ code: number | string; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--import', TSX, path.join(ROOT, 'scripts/test-definitions.ts')], { cwd: tmp.dir, timeout: 30_000, killSignal: 'SIGKILL' }, (error, stdout) => {
        resolve({ code: error ? (error.killed ? 'killed after 30 s' : Number(error.code ?? 1)) : 0, stdout });
      });
    });

  it('a name pointing at a FIFO: located FILE_UNREADABLE, counted failed, exit 1', async () => {
    const fifo = path.join(tmp.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await fs.rm(path.join(tmp.dir, CASES));
    await fs.symlink(fifo, path.join(tmp.dir, CASES));
    const outcome = await run();
    expect(outcome.stdout).to.equal(
      [
        `✘ acme-crm draft list-items: ${CASES} is not a valid case file`,
        `    ${CASES}:1:1 FILE_UNREADABLE not a regular file (a FIFO): a definition file must be a file of YAML text`,
        '0 passed, 1 failed',
        '',
      ].join('\n'),
    );
    expect(outcome.code).to.equal(1);
  });

  it('a Latin-1 letter: located at it, counted failed, exit 1', async () => {
    const file = path.join(tmp.dir, CASES);
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, Buffer.from(`# Caf\u00e9\n${text}`, 'latin1'));
    const outcome = await run();
    expect(outcome.stdout.split('\n').slice(0, 2)).to.deep.equal([
      `✘ acme-crm draft list-items: ${CASES} is not a valid case file`,
      `    ${CASES}:1:6 FILE_UNREADABLE the file is not UTF-8 text: byte 0xE9 at line 1, column 6; save it as UTF-8`,
    ]);
    expect(outcome.code).to.equal(1);
  });
});
