import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../../../engine/platform/package-root.ts';
import { osPipe } from '../../../scripts/bench/os-pipe.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * The process's own stdout destination (createLogger without a destination) holds lines as their bytes
 * until a batch is written. These run a child that logs through it and read what reaches stdout: every
 * line whole and in order, text outside ASCII intact (a line's bytes, not its characters, are counted),
 * and nothing lost when the process exits at once, without flushLogs (the synchronous flush on exit).
 * Each runs with stdout a socket (written by a thread of its own: thread-sink.ts), a pipe (pipe-writer.ts) and a file.
 */
/** How the child's stdout is made: Node's `stdio: 'pipe'` (a socket pair: a thread of its own writes to it, thread-sink.ts), or a pipe of the operating system (a container runtime's, a shell's: pipe-writer.ts writes to it). */
type StdoutKind = 'socket' | 'pipe' | 'file';

interface LoggingChild {
  child: ReturnType<typeof spawn>;
  /** Its stdout as read from; pause() it to stop reading (a stalled log shipper). */
  out: Readable;
  stdout(): string;
  stderr(): string;
  /** Its exit code, once it has exited and its stdout and stderr are closed (all of them read). */
  ended: Promise<number | null>;
}

/** A child running `script` (a .mts file) with stdout of `kind`, its stdout and stderr collected; `paused`: stdout not read until resumed. */
function spawnLogging(script: string, kind: StdoutKind, dir: string, options: { paused?: boolean } = {}): LoggingChild {
  if (kind === 'file') return spawnLoggingToFile(script, dir);
  const pipe = kind === 'pipe' ? osPipe(dir) : null;
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: PACKAGE_ROOT, stdio: ['ignore', pipe ? pipe.writeFd : 'pipe', 'pipe'] });
  if (pipe) closeSync(pipe.writeFd);
  const out: Readable = pipe ? pipe.readable : child.stdout!;
  let stdout = '';
  let stderr = '';
  out.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  if (options.paused) out.pause();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const closed = (stream: Readable) => new Promise((resolve) => stream.on('close', resolve));
  return { child, out, stdout: () => stdout, stderr: () => stderr, ended: Promise.all([exited, closed(out), closed(child.stderr!)]).then(([code]) => code) };
}

/** A child whose stdout is a regular file (`node gateway > gateway.log`); stdout() reads the file once the child has exited. */
function spawnLoggingToFile(script: string, dir: string): LoggingChild {
  const file = path.join(dir, 'stdout.log');
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: PACKAGE_ROOT, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let stdout = '';
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve)).then((code) => {
    stdout = readFileSync(file, 'utf8');
    return code;
  });
  return { child, out: child.stderr!, stdout: () => stdout, stderr: () => stderr, ended };
}

describe('the stdout log destination, stdout a full device (/dev/full: every write fails with ENOSPC)', function () {
  this.timeout(60_000);

  it('logs on, drops the lines stdout refuses, and exits when asked, without waiting for room that never comes', async () => {
    const temp = await tempDir('igw-stdout-log-');
    const full = openSync('/dev/full', 'w');
    try {
      const script = path.join(temp.dir, 'log.mts');
      const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
      await fs.writeFile(
        script,
        `import { createLogger, flushLogs } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\nfor (let i = 0; i < 5000; i++) {\n  logger.info({ i }, 'a line');\n  if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));\n}\nawait flushLogs();\nprocess.stderr.write('logged 5000 lines');\n`,
      );
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: PACKAGE_ROOT, stdio: ['ignore', full, 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).to.equal(0);
      expect(stderr).to.equal('logged 5000 lines');
    } finally {
      closeSync(full);
      await temp.cleanup();
    }
  });
});

for (const kind of ['socket', 'pipe', 'file'] as const) describe(`the stdout log destination, stdout a ${kind}`, function () {
  this.timeout(60_000);

  async function logThrough(body: string): Promise<{ code: number | null; stdout: string }> {
    const temp = await tempDir('igw-stdout-log-');
    try {
      const script = path.join(temp.dir, 'log.mts');
      const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
      await fs.writeFile(script, `import { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\n${body}\n`);
      const logging = spawnLogging(script, kind, temp.dir);
      const code = await logging.ended;
      return { code, stdout: logging.stdout() };
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

  // A file takes every write: there is no reader to stall, nothing to hold.
  if (kind !== 'file') {
    type Line = { level: number; i?: number; msg: string; droppedLines?: number; droppedBytes?: number };

    /**
     * Walks what reached stdout: the kept lines in order, each whole, and every gap in them announced by a
     * warning in its place that counts exactly the lines missing there. Answers the kept lines and the warnings.
     */
    function accountFor(stdout: string, logged: number): { kept: Line[]; notices: Line[] } {
      const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Line);
      const kept: Line[] = [];
      const notices: Line[] = [];
      let next = 0;
      for (const [at, line] of lines.entries()) {
        if (line.msg === 'request') {
          expect(line.i, `line ${at + 1} of stdout: the next line logged, or a warning of the lines missing before it`).to.equal(next);
          next++;
          kept.push(line);
        } else {
          expect(line.level).to.equal(40);
          expect(line.msg).to.match(/^log lines dropped: stdout was not read while 1048576 bytes of lines waited \(LOG_QUEUE_MAX_BYTES\)/);
          expect(line.droppedLines).to.be.above(0);
          expect(line.droppedBytes).to.be.above(line.droppedLines! * 400);
          next += line.droppedLines!;
          notices.push(line);
        }
      }
      expect(next, 'every line logged is on stdout or counted by a warning').to.equal(logged);
      return { kept, notices };
    }

    /** The child: 8,000 run-sized lines (~3.4 MB) in two halves, `between` run after the first half. */
    async function writeStalledScript(dir: string, between: string): Promise<string> {
      const script = path.join(dir, 'log.mts');
      const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
      await fs.writeFile(
        script,
        `import { createLogger, flushLogs } from ${JSON.stringify(logger)};
        const log = createLogger('info', undefined, { maxQueuedBytes: 1024 * 1024 });
        for (let i = 0; i < 8000; i++) {
          if (i === 4000) { ${between} }
          log.info({ i, padding: 'x'.repeat(380) }, 'request');
          if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
        }
        process.stderr.write('logged\\n');
        await flushLogs(10_000);
        `,
      );
      return script;
    }

    it('holds at most its bound of lines while stdout is not read, drops the rest whole, and says how many once stdout takes lines again', async () => {
      const temp = await tempDir('igw-stdout-log-');
      try {
        // A log shipper that stopped: nobody reads stdout while every line is logged.
        const logging = spawnLogging(await writeStalledScript(temp.dir, ''), kind, temp.dir, { paused: true });
        await eventually(async () => logging.stderr(), (text) => text.includes('logged'), 'the child logged every line');
        logging.out.resume();
        const code = await logging.ended;
        expect(code, logging.stderr()).to.equal(0);
        const { kept, notices } = accountFor(logging.stdout(), 8000);
        // What was kept is about the bound (and what the pipe and the write under way held).
        expect(kept.length).to.be.within(1000, 3000);
        expect(notices.length).to.be.at.least(1);
      } finally {
        await temp.cleanup();
      }
    });

    it('when stdout takes some lines between drops, says how many went missing where they went missing, not after the lines kept since', async () => {
      const temp = await tempDir('igw-stdout-log-');
      try {
        // After 4,000 lines (the bound long passed) the child says so and waits 1 s; meanwhile the reader takes
        // ~256 KB and stops again. Room is made: lines after that are kept until the bound is reached again.
        const script = await writeStalledScript(temp.dir, "process.stderr.write('half\\n'); await new Promise((resolve) => setTimeout(resolve, 1000));");
        const logging = spawnLogging(script, kind, temp.dir, { paused: true });
        await eventually(async () => logging.stderr(), (text) => text.includes('half'), 'the child logged half its lines');
        let taken = 0;
        const takeSome = (chunk: string) => {
          taken += Buffer.byteLength(chunk);
          if (taken >= 256 * 1024) {
            logging.out.pause();
            logging.out.off('data', takeSome);
          }
        };
        logging.out.on('data', takeSome);
        logging.out.resume();
        await eventually(async () => logging.stderr(), (text) => text.includes('logged'), 'the child logged every line');
        logging.out.resume();
        const code = await logging.ended;
        expect(code, logging.stderr()).to.equal(0);
        const { kept, notices } = accountFor(logging.stdout(), 8000);
        expect(kept.at(-1)!.i, 'lines of the second half were kept').to.be.at.least(4000);
        expect(notices.length, 'a warning in each gap').to.be.at.least(2);
      } finally {
        await temp.cleanup();
      }
    });
  }

  if (kind === 'file') {
    it('writes each filled batch to the file from the logging thread: it is there when the logging call returns, not after a thread-pool round trip', async () => {
      const temp = await tempDir('igw-stdout-log-');
      try {
        const script = path.join(temp.dir, 'log.mts');
        const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
        await fs.writeFile(script, `import { fstatSync } from 'node:fs';\nimport { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\nfor (let i = 0; i < 500; i++) logger.info({ i, padding: 'x'.repeat(60) }, 'a line');\nprocess.stderr.write(String(fstatSync(1).size));\n`);
        const logging = spawnLogging(script, kind, temp.dir);
        expect(await logging.ended).to.equal(0);
        // 500 lines of ~130 bytes, logged without a turn of the event loop: every filled batch is in the file (a
        // thread pool's writer has one write under way and the rest waiting for a turn).
        const written = logging.stdout().length;
        expect(written).to.be.above(60_000);
        expect(Number(logging.stderr()), 'bytes in the file as the last call returned').to.be.at.least(written - 4096);
        expect(logging.stdout().trimEnd().split('\n')).to.have.length(500);
      } finally {
        await temp.cleanup();
      }
    });
  }

  it('loses no line when the process exits at once, its last batch not yet written; 20,000 lines in order', async () => {
    const { code, stdout } = await logThrough(`
      for (let i = 0; i < 20000; i++) {
        logger.info({ i }, 'before exit ✓');
        if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      process.exit(3);
    `);
    expect(code).to.equal(3);
    const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number; msg: string });
    expect(lines.map((line) => line.i)).to.deep.equal(Array.from({ length: 20000 }, (_, i) => i));
    expect(lines.every((line) => line.msg === 'before exit ✓')).to.equal(true);
  });

  // A reader a little behind (a log shipper busy for a moment) when the process exits: stdout is full, a write is
  // under way and more lines wait. pino's asynchronous destination (libuv's thread pool), which sockets and
  // terminals had until 2 December 2026, wrote what waited from its exit hook while the pool's write of the batch
  // before was still retrying: that batch came after later ones, or not at all (lines missing in 2 of 3 runs).
  if (kind !== 'file') {
    it('loses no line and keeps their order when the process exits while stdout is full and its reader a moment behind', async () => {
      const temp = await tempDir('igw-stdout-log-');
      try {
        const script = path.join(temp.dir, 'log.mts');
        const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
        // ~2.4 MB of lines: far more than a socket or a pipe holds.
        await fs.writeFile(script, `import { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\nfor (let i = 0; i < 6000; i++) {\n  logger.info({ i, padding: 'x'.repeat(350) }, 'before exit');\n  if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));\n}\nprocess.exit(4);\n`);
        const logging = spawnLogging(script, kind, temp.dir, { paused: true });
        // Read a slice now and then until the child is gone, then the rest.
        const reader = setInterval(() => {
          logging.out.resume();
          setTimeout(() => logging.out.pause(), 2);
        }, 40);
        await new Promise((resolve) => logging.child.on('exit', resolve));
        clearInterval(reader);
        logging.out.resume();
        const code = await logging.ended;
        expect(code, logging.stderr()).to.equal(4);
        const lines = logging.stdout().trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number; msg: string });
        expect(lines.map((line) => line.i)).to.deep.equal(Array.from({ length: 6000 }, (_, i) => i));
      } finally {
        await temp.cleanup();
      }
    });
  }

  if (kind !== 'file') {
    it(`at an exit while nobody reads the ${kind}, gives up what is left after 2 s without progress instead of waiting for a reader, every line written whole, and counts on stderr every line not written`, async () => {
      const temp = await tempDir('igw-stdout-log-');
      try {
        const script = path.join(temp.dir, 'log.mts');
        const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
        // ~430 KB of lines: the pipe (64 KiB) fills, the rest waits in the process when it exits.
        await fs.writeFile(script, `import { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\nfor (let i = 0; i < 1000; i++) logger.info({ i, padding: 'x'.repeat(380) }, 'before exit');\nprocess.exit(5);\n`);
        const logging = spawnLogging(script, kind, temp.dir, { paused: true });
        const started = Date.now();
        await new Promise((resolve) => logging.child.on('exit', resolve));
        const tookMs = Date.now() - started;
        logging.out.resume();
        const code = await logging.ended;
        const stderr = logging.stderr();
        expect(code, stderr).to.equal(5);
        expect(tookMs, 'the exit waited for the pipe at most its bound (and the start)').to.be.below(20_000);
        // No line cut: a socket's thread wrote a batch of 64 KiB, which the kernel takes in two parts, and the exit came between them.
        expect(logging.stdout().endsWith('\n'), `the last bytes on stdout: ${JSON.stringify(logging.stdout().slice(-60))}`).to.equal(true);
        const lines = logging.stdout().trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number; msg: string });
        // What stdout held when the reader stopped is there, whole and in order; the rest was given up and counted.
        expect(lines.map((line) => line.i)).to.deep.equal(Array.from({ length: lines.length }, (_, i) => i));
        expect(lines.length).to.be.within(100, 999);
        const notice = /^(\d+) log lines \((\d+) bytes\) not written: stdout took nothing for 2000 ms$/m.exec(stderr);
        expect(notice, stderr).to.not.equal(null);
        expect(stderr.trimEnd().split('\n'), 'one notice').to.have.length(1);
        // The batch the socket's thread held (up to 32 KiB of lines) was not counted.
        expect(Number(notice![1])).to.equal(1000 - lines.length);
      } finally {
        await temp.cleanup();
      }
    });

    it(`a graceful stop (flushLogs, then exit) while nobody reads the ${kind} waits about 4 s in all, as documented (a socket waited 6 s: 2 s more for the batch its thread held), and counts every line not written once`, async () => {
      const temp = await tempDir('igw-stdout-log-');
      try {
        const script = path.join(temp.dir, 'log.mts');
        const logger = pathToFileURL(path.join(PACKAGE_ROOT, 'engine/platform/log/logger.ts')).href;
        await fs.writeFile(
          script,
          `import { createLogger, flushLogs } from ${JSON.stringify(logger)};\nconst logger = createLogger('info');\nfor (let i = 0; i < 1000; i++) logger.info({ i, padding: 'x'.repeat(380) }, 'before exit');\nconst started = Date.now();\nprocess.on('exit', () => process.stderr.write('waited ' + (Date.now() - started) + ' ms\\n'));\nawait flushLogs();\nprocess.exit(0);\n`,
        );
        const logging = spawnLogging(script, kind, temp.dir, { paused: true });
        await new Promise((resolve) => logging.child.on('exit', resolve));
        logging.out.resume();
        const code = await logging.ended;
        const stderr = logging.stderr();
        expect(code, stderr).to.equal(0);
        const waited = /^waited (\d+) ms$/m.exec(stderr);
        expect(Number(waited![1]), stderr).to.be.within(3900, 5000);
        const lines = logging.stdout().trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number; msg: string });
        expect(lines.map((line) => line.i)).to.deep.equal(Array.from({ length: lines.length }, (_, i) => i));
        const notices = [...stderr.matchAll(/^(\d+) log lines \((\d+) bytes\) not written: stdout took nothing for 2000 ms$/gm)];
        expect(notices, stderr).to.have.length(1);
        expect(Number(notices[0]![1])).to.equal(1000 - lines.length);
      } finally {
        await temp.cleanup();
      }
    });
  }
});
