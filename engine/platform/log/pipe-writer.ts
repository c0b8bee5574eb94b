import { EventEmitter } from 'node:events';
import { closeSync, constants, fstatSync, openSync, writevSync } from 'node:fs';
import { isatty } from 'node:tty';
import { ThreadSink, type Unwritten } from './thread-sink.ts';

/**
 * A pipe takes a write of at most PIPE_BUF bytes (4096 on Linux) whole or not at all: batches are cut at
 * line ends within it, so no line is split between two writes or mixed with another writer's output.
 */
export const PIPE_BUF = 4096;

export interface PipeWriterOptions {
  /** Bytes of lines gathered before they are written. */
  batchBytes: number;
  /** The longest a line waits for its batch to fill. */
  flushMs: number;
  /** The most bytes of lines held while the pipe takes nothing; a line beyond it is dropped whole ('drop'). */
  maxQueuedBytes: number;
  /** How long a synchronous flush (on exit) waits for a pipe that takes nothing before it gives up. */
  stalledMs: number;
}

/**
 * Where a PipeWriter's batches go: a file descriptor this thread writes with writev(2) (a pipe of its own,
 * non-blocking; a file), or a thread that writes them (thread-sink.ts: a socket, a terminal).
 */
export interface BatchSink {
  /** The most bytes of whole lines handed over at once (a longer line goes alone). */
  readonly batchLimit: number;
  /** A failed write loses that batch, and the next is tried (a full disk), instead of closing. */
  readonly dropsOnFailure: boolean;
  /** Answers the bytes taken (a line may be taken in part), or throws: code EAGAIN when nothing can be taken now, any other when stdout failed. */
  writev(lines: Buffer[]): number;
  /** At an exit, once everything is handed over: waits for it to be written, at most stalledMs without progress; answers the lines and bytes left. */
  settleSync?(stalledMs: number): Unwritten;
  /** A sink that answered EAGAIN calls `wake` once it can take more (else the writer tries again after a few ms). */
  onIdle?(wake: () => void): void;
  close(): void;
}

/** A file descriptor written from this thread: at most PIPE_BUF bytes a write (a pipe takes it whole), closed when done unless it is fd 1 itself (`file`). */
function fdSink(fd: number, file: boolean): BatchSink {
  return {
    batchLimit: PIPE_BUF,
    dropsOnFailure: file,
    writev: (lines) => writevSync(fd, lines),
    close: () => {
      try {
        if (!file) closeSync(fd);
      } catch {
        /* already closed */
      }
    },
  };
}

/**
 * stdout as a pipe (a container runtime's log pipe, a log shipper), written from this thread without ever
 * waiting for its reader. The pipe is opened again through /proc/self/fd/1, which gives this process a
 * description of the pipe of its own, set non-blocking (fd 1's own flags are shared with the processes
 * that handed it down, and stay as they are). Each batch is one writev(2) from this thread: a pipe with room
 * takes it at once; a full one answers EAGAIN and the lines wait in the process (at most maxQueuedBytes,
 * retried every few ms) instead of the request that logged them.
 *
 * What it replaces for pipes, pino's asynchronous destination (sonic-boom), hands each batch to libuv's
 * thread pool: a thread woken, a write, the main thread woken back, for every batch. And its exit hook
 * writes what is left from the main thread while the pool may still be writing the batch before it, so at
 * an abrupt exit the last lines could reach stdout before earlier ones; with a full pipe that hook blocked
 * the exit until someone read. Here one thread writes, always in order, and an exit waits for a pipe that
 * takes nothing at most stalledMs.
 */
export class PipeWriter extends EventEmitter {
  private lines: Buffer[] = [];
  private head = 0;
  private queued = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The pipe answered EAGAIN: a retry is scheduled, and lines only gather until it. */
  private waiting = false;
  private retryMs = RETRY_FIRST_MS;
  /** Whether the 'drain' event is owed: the pipe was full, or lines were dropped, since the last one. */
  private owesDrain = false;
  private closed = false;
  /**
   * A synchronous flush gave up (stdout took nothing for stalledMs) and stdout has taken nothing since: a later
   * one (the exit's, after flushLogs' own gave up) does not wait again, nor count again what the sink holds.
   */
  private gaveUp = false;
  private flushed: (() => void)[] = [];
  private readonly sink: BatchSink;

  /**
   * `target`: a file descriptor written from this thread, or another sink (a ThreadSink).
   * `file`: fd is stdout itself, a regular file or a device such as /dev/null (never full: a write takes
   * what it is given). A failed write there (a full disk) drops that batch's lines, counted, and the next
   * batch is tried; a pipe that fails (EPIPE: nobody reads any more) is closed for good.
   */
  constructor(
    target: number | BatchSink,
    private readonly options: PipeWriterOptions,
    file = false,
  ) {
    super();
    this.sink = typeof target === 'number' ? fdSink(target, file) : target;
    this.sink.onIdle?.(() => {
      if (!this.waiting || this.closed) return;
      this.waiting = false;
      this.retryMs = RETRY_FIRST_MS;
      this.writeOut();
    });
  }

  /** Queues one line (its bytes: the caller encodes it once); false when it was dropped. */
  write(line: Buffer): boolean {
    if (this.closed) return true;
    if (this.queued + line.length > this.options.maxQueuedBytes) {
      this.owesDrain = true;
      this.emit('drop', line);
      return false;
    }
    this.lines.push(line);
    this.queued += line.length;
    if (this.waiting) return true;
    if (this.queued >= this.options.batchBytes) this.writeOut();
    else if (this.timer === null) {
      this.timer = setTimeout(this.onTimer, this.options.flushMs);
      this.timer.unref();
    }
    return true;
  }

  /** Writes what is gathered (a batch not yet full too); `done` once everything queued is written (or stdout is gone). */
  flush(done: () => void): void {
    if (this.closed || this.head === this.lines.length) {
      process.nextTick(done);
      return;
    }
    this.flushed.push(done);
    if (!this.waiting) this.writeOut();
  }

  /**
   * Writes everything queued now, waiting for a full pipe while it keeps taking lines, then (a ThreadSink)
   * for the thread to have written what it was handed; gives up after stalledMs without progress (on exit).
   */
  flushSync(): void {
    this.clearTimer();
    // Stalled already (an earlier flush gave up and nothing was taken since): what cannot be written now is given up at once.
    let stalledSince = Date.now() - (this.gaveUp ? this.options.stalledMs : 0);
    for (;;) {
      const outcome = this.writeSome();
      if (outcome === 'done' || outcome === 'closed') break;
      if (outcome === 'wrote') {
        stalledSince = Date.now();
        continue;
      }
      if (Date.now() - stalledSince >= this.options.stalledMs) {
        this.giveUp();
        return;
      }
      Atomics.wait(SLEEPER, 0, 0, RETRY_FIRST_MS);
    }
    if (!this.closed && !this.gaveUp && this.sink.settleSync) {
      const left = this.sink.settleSync(this.options.stalledMs);
      if (left.bytes > 0) {
        this.gaveUp = true;
        this.tellNotWritten(left.lines, left.bytes);
      }
    }
    if (this.head === this.lines.length) this.emptied();
  }

  private readonly onTimer = (): void => {
    this.timer = null;
    if (this.waiting) {
      this.waiting = false;
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    }
    this.writeOut();
  };

  /** Writes batches until the queue is empty or the pipe is full (then retries later). */
  private writeOut(): void {
    this.clearTimer();
    for (;;) {
      const outcome = this.writeSome();
      if (outcome === 'wrote') continue;
      if (outcome === 'full') {
        this.waiting = true;
        this.owesDrain = true;
        this.timer = setTimeout(this.onTimer, this.retryMs);
        this.timer.unref();
        return;
      }
      break;
    }
    this.retryMs = RETRY_FIRST_MS;
    if (this.head === this.lines.length) this.emptied();
  }

  /** One writev of the next batch: whole lines of at most the sink's batchLimit bytes together (PIPE_BUF for a pipe), or one longer line (what is left of it). */
  private writeSome(): 'wrote' | 'full' | 'done' | 'closed' {
    if (this.closed) return 'closed';
    const { lines } = this;
    if (this.head === lines.length) return 'done';
    let end = this.head + 1;
    let bytes = lines[this.head]!.length;
    const limit = this.sink.batchLimit;
    while (end < lines.length && bytes + lines[end]!.length <= limit) bytes += lines[end++]!.length;
    let written: number;
    try {
      written = this.sink.writev(end - this.head === 1 ? [lines[this.head]!] : lines.slice(this.head, end));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 'full';
      if (this.sink.dropsOnFailure) {
        // A file that took nothing (ENOSPC, EIO): this batch is lost, counted as dropped; the next one is tried.
        for (let i = this.head; i < end; i++) {
          this.queued -= lines[i]!.length;
          this.emit('drop', lines[i]);
        }
        this.head = end;
        this.owesDrain = true;
        return 'wrote';
      }
      // EPIPE (nobody reads any more) or any other failure of stdout: nothing more can be written; lines are let go.
      this.close();
      return 'closed';
    }
    this.queued -= written;
    this.gaveUp = false;
    this.emit('write', written);
    while (written > 0) {
      const line = lines[this.head]!;
      if (written >= line.length) {
        written -= line.length;
        this.head++;
      } else {
        // Only a line longer than PIPE_BUF can be taken in part: the rest goes first in the next write.
        lines[this.head] = line.subarray(written);
        written = 0;
      }
    }
    // A reader that keeps up only just never lets the queue empty: the written lines are let go as it goes.
    if (this.head >= COMPACT_FROM && this.head * 2 >= lines.length) {
      this.lines = lines.slice(this.head);
      this.head = 0;
    }
    return 'wrote';
  }

  /** The queue is empty: its storage let go, a flush's callbacks called, 'drain' emitted if owed. */
  private emptied(): void {
    this.clearQueue();
    const flushed = this.flushed;
    this.flushed = [];
    for (const done of flushed) done();
    if (this.owesDrain) {
      this.owesDrain = false;
      this.emit('drain');
    }
  }

  /**
   * A stdout that took nothing for stalledMs at exit: what is left is not written, and stderr says so, counting
   * what the sink was handed and still holds (a ThreadSink's batch) unless an earlier give-up counted it.
   */
  private giveUp(): void {
    const held = this.gaveUp || !this.sink.settleSync ? { lines: 0, bytes: 0 } : this.sink.settleSync(0);
    const count = this.lines.length - this.head + held.lines;
    const bytes = this.queued + held.bytes;
    this.clearQueue();
    this.gaveUp = true;
    this.tellNotWritten(count, bytes);
  }

  private tellNotWritten(lines: number, bytes: number): void {
    this.tellStderr(`${lines} log lines (${bytes} bytes) not written: stdout took nothing for ${this.options.stalledMs} ms\n`);
  }

  private tellStderr(text: string): void {
    try {
      process.stderr.write(text);
    } catch {
      /* stderr gone too */
    }
  }

  private close(): void {
    this.closed = true;
    this.clearTimer();
    this.clearQueue();
    this.sink.close();
    const flushed = this.flushed;
    this.flushed = [];
    for (const done of flushed) done();
  }

  private clearQueue(): void {
    this.lines = [];
    this.head = 0;
    this.queued = 0;
  }

  private clearTimer(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}

const RETRY_FIRST_MS = 5;
/** Written lines at the queue's head past which, when they are half of it, the queue is copied without them. */
const COMPACT_FROM = 256;
const RETRY_MAX_MS = 100;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * The writer of this process's stdout. A pipe that can be opened again through /proc (Linux) is written from
 * this thread through a description of its own, non-blocking; a regular file or a device that is not a
 * terminal (/dev/null) through fd 1 itself: a write there is a copy into the page cache, cheaper than a
 * round trip to another thread (a thread woken, a write, the main thread woken back: on a busy gateway whose
 * threads share a CPU, ~10 µs a request, docs/benchmarks.md). Anything else (a socket such as journald's, a
 * terminal, a pipe /proc cannot open) may make a write wait and cannot be given a description of its own, so
 * a thread of its own writes it (thread-sink.ts). Undefined when fd 1 cannot even be looked at.
 */
export function openStdoutPipe(options: PipeWriterOptions): PipeWriter | undefined {
  let stat;
  try {
    stat = fstatSync(1);
  } catch {
    return undefined;
  }
  if (stat.isFile() || (stat.isCharacterDevice() && !isatty(1))) return new PipeWriter(1, options, true);
  if (stat.isFIFO()) {
    try {
      return new PipeWriter(openSync('/proc/self/fd/1', constants.O_WRONLY | constants.O_NONBLOCK), options);
    } catch {
      /* no /proc: written by a thread, below */
    }
  }
  return new PipeWriter(new ThreadSink(1), options);
}
