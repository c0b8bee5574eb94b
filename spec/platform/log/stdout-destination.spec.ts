import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../../../engine/platform/package-root.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * The process's own stdout destination (createLogger without a destination) holds lines as their bytes
 * until a batch is written. These run a child that logs through it and read what reaches stdout: every
 * line whole and in order, text outside ASCII intact (a line's bytes, not its characters, are counted),
 * and nothing lost when the process exits at once, without flushLogs (pino's synchronous flush on exit).
 */
describe('the stdout log destination', function () {
  this.timeout(60_000);

  async function logThrough(body: string): Promise<{ code: number | null; stdout: string }> {
    const temp = await tempDir('igw-stdout-log-');
    try {
      const script = path.join(temp.dir, 'log.mts');
      const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
      await fs.writeFile(script, `import { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\n${body}\n`);
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      return { code, stdout };
    } finally {
      await temp.cleanup();
    }
  }

  it('writes every line whole and in order, with text outside ASCII intact, across batches and turns', async () => {
    const { code, stdout } = await logThrough(`
      const words = ['café', 'naïve 😀', '中文字', 'plain'];
      for (let i = 0; i < 3000; i++) {
        logger.info({ i, word: words[i % words.length] }, 'línea ' + i);
        if (i % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const { flushLogs } = await import(${JSON.stringify(pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href)});
      await flushLogs();
    `);
    expect(code).to.equal(0);
    const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number; word: string; msg: string });
    expect(lines).to.have.length(3000);
    const words = ['café', 'naïve 😀', '中文字', 'plain'];
    lines.forEach((line, i) => expect(line).to.deep.include({ i, word: words[i % words.length], msg: `línea ${i}` }));
  });

  it('holds at most its bound of lines while stdout is not read, drops the rest whole, and says how many once stdout takes lines again', async () => {
    const temp = await tempDir('igw-stdout-log-');
    try {
      const script = path.join(temp.dir, 'log.mts');
      const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
      await fs.writeFile(
        script,
        `import { createLogger, flushLogs } from ${JSON.stringify(logger)};
        const log = createLogger('info', undefined, { maxQueuedBytes: 1024 * 1024 });
        // 8,000 run-sized lines (~3.4 MB) while nobody reads stdout: a log shipper that stopped.
        for (let i = 0; i < 8000; i++) {
          log.info({ i, padding: 'x'.repeat(380) }, 'request');
          if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
        }
        process.stderr.write('logged\\n');
        await flushLogs(10_000);
        `,
      );
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stdout.pause();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      await eventually(async () => stderr, (text) => text.includes('logged'), 'the child logged every line');
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).to.equal(0);
      const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { level: number; i?: number; msg: string; droppedLines?: number; droppedBytes?: number });
      const kept = lines.filter((line) => line.msg === 'request');
      // What was kept is the lines up to the bound (and what the pipe and the write under way held), in order, each whole.
      expect(kept.map((line) => line.i)).to.deep.equal(Array.from({ length: kept.length }, (_, i) => i));
      expect(kept.length).to.be.within(1000, 3000);
      const notice = lines.at(-1)!;
      expect(notice.level).to.equal(40);
      expect(notice.droppedLines).to.equal(8000 - kept.length);
      expect(notice.droppedBytes).to.be.above(notice.droppedLines! * 400);
      expect(notice.msg).to.match(/^log lines dropped: stdout was not read while 1048576 bytes of lines waited \(LOG_QUEUE_MAX_BYTES\)/);
    } finally {
      await temp.cleanup();
    }
  });

  it('loses no line when the process exits at once, its last batch not yet written', async () => {
    const { code, stdout } = await logThrough(`
      for (let i = 0; i < 500; i++) logger.info({ i }, 'before exit ✓');
      process.exit(3);
    `);
    expect(code).to.equal(3);
    const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number; msg: string });
    expect(lines.map((line) => line.i)).to.deep.equal(Array.from({ length: 500 }, (_, i) => i));
    expect(lines.every((line) => line.msg === 'before exit ✓')).to.equal(true);
  });
});
