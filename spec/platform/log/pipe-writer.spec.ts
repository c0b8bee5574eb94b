import { expect } from 'chai';
import { PIPE_BUF, PipeWriter } from '../../../engine/platform/log/pipe-writer.ts';
import { ThreadSink } from '../../../engine/platform/log/thread-sink.ts';
import { osPipe } from '../../../scripts/bench/os-pipe.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * The writer of stdout when it is a pipe, on a pipe of this process: a reader that falls behind (the pipe
 * full: EAGAIN) gets every line whole and in order, in writes of at most PIPE_BUF; past the bound lines are
 * dropped whole and counted, and 'drain' says when the pipe took what waited. The same with the batches
 * written by a thread of their own (ThreadSink: stdout a socket or a terminal).
 */
for (const by of ['this thread', 'a thread of its own'] as const) describe(`PipeWriter, written by ${by}`, function () {
  this.timeout(30_000);
  const options = { batchBytes: 4096, flushMs: 100, maxQueuedBytes: 1 << 20, stalledMs: 2000 };

  async function onPipe(run: (writer: PipeWriter, read: { chunks: Buffer[]; readable: import('node:net').Socket }) => Promise<void>): Promise<void> {
    const temp = await tempDir('igw-pipe-writer-');
    const pipe = osPipe(temp.dir, { nonBlockingWrite: true });
    const writer = by === 'this thread' ? new PipeWriter(pipe.writeFd, options) : new PipeWriter(new ThreadSink(pipe.writeFd), options);
    const read = { chunks: [] as Buffer[], readable: pipe.readable };
    pipe.readable.on('data', (chunk: Buffer) => read.chunks.push(chunk));
    try {
      await run(writer, read);
    } finally {
      pipe.readable.destroy();
      await temp.cleanup();
    }
  }

  const line = (i: number, size: number) => Buffer.from(`${JSON.stringify({ i, pad: 'é'.repeat(size) })}\n`);
  const flushed = (writer: PipeWriter) => new Promise<void>((resolve) => writer.flush(resolve));

  it('a reader that stops and starts again gets every line whole and in order, the writer never waiting for it', async () => {
    await onPipe(async (writer, read) => {
      read.readable.pause();
      let dropped = 0;
      writer.on('drop', () => dropped++);
      // ~600 KB: nine times what the pipe holds, within the bound.
      const started = performance.now();
      for (let i = 0; i < 3000; i++) writer.write(line(i, 100));
      expect(performance.now() - started, 'writing lines never waited for the reader').to.be.below(2000);
      const drained = new Promise<void>((resolve) => writer.once('drain', resolve));
      setTimeout(() => read.readable.resume(), 200);
      await drained;
      await flushed(writer);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const text = Buffer.concat(read.chunks).toString('utf8');
      const got = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { i: number; pad: string });
      expect(dropped).to.equal(0);
      expect(got.map((l) => l.i)).to.deep.equal(Array.from({ length: 3000 }, (_, i) => i));
      expect(got.every((l) => l.pad === 'é'.repeat(100))).to.equal(true);
    });
  });

  it('past its bound drops lines whole and counts them, then drains', async () => {
    await onPipe(async (writer, read) => {
      read.readable.pause();
      const dropped: number[] = [];
      writer.on('drop', (l: Buffer) => dropped.push((JSON.parse(l.toString('utf8')) as { i: number }).i));
      const total = Math.ceil((options.maxQueuedBytes * 2) / line(0, 1000).length);
      for (let i = 0; i < total; i++) writer.write(line(i, 1000));
      expect(dropped.length).to.be.above(0);
      read.readable.resume();
      await new Promise<void>((resolve) => writer.once('drain', resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const got = Buffer.concat(read.chunks).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { i: number });
      expect(got.map((l) => l.i), 'what was kept is a run of whole lines from the first').to.deep.equal(Array.from({ length: got.length }, (_, i) => i));
      expect(dropped, 'every line after them was dropped whole').to.deep.equal(Array.from({ length: total - got.length }, (_, i) => got.length + i));
    });
  });

  it('a line longer than PIPE_BUF goes out whole, between the lines around it', async () => {
    await onPipe(async (writer, read) => {
      writer.write(line(0, 10));
      writer.write(line(1, PIPE_BUF * 3));
      writer.write(line(2, 10));
      await flushed(writer);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const got = Buffer.concat(read.chunks).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { i: number; pad: string });
      expect(got.map((l) => l.i)).to.deep.equal([0, 1, 2]);
      expect(got[1]!.pad).to.have.length(PIPE_BUF * 3);
    });
  });

  it('a reader gone for good (EPIPE) ends the writing: later lines and flushes are let go, nothing thrown', async () => {
    await onPipe(async (writer, read) => {
      read.readable.destroy();
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (let i = 0; i < 100; i++) writer.write(line(i, 100));
      await flushed(writer);
      writer.flushSync();
    });
  });
});
