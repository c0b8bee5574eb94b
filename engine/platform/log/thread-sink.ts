import { Worker } from 'node:worker_threads';

/**
 * stdout written by a thread of its own, for a stdout this thread cannot write to without risking a wait: a
 * socket (journald's, Node's own `stdio: 'pipe'`) or a terminal, which cannot be opened again with a
 * description of their own as a pipe is (pipe-writer.ts), and whose fd 1 flags are shared with the processes
 * that handed it down. The thread writes the batches in the order they were handed over, each to its last
 * byte (a full socket: it waits and tries again), so stdout gets every line whole and in order.
 *
 * What it replaces, pino's asynchronous destination, wrote through libuv's thread pool, and at an exit wrote
 * what waited from the main thread while the pool was still retrying the batch before it: that batch came
 * after later ones, or not at all. Here an exit hands over what is left and waits, at most a bound without
 * progress, for the thread to have written it all (settleSync), in order.
 */
export class ThreadSink {
  /**
   * A batch of whole lines up to this size goes over in one message. One batch at a time: while the thread
   * writes it, writev answers EAGAIN and the lines wait in the PipeWriter, within its bound, so a hand-over
   * says stdout took the batch before (the PipeWriter's 'write') and what waits in the process stays bounded.
   *
   * 32 KiB, so that a socket takes a batch whole or not at all: Linux queues a write to a Unix stream socket
   * (Node's `stdio: 'pipe'`, journald's) in buffers of at most 32 KiB and a page, one at a time, waiting for
   * room before each; a 64 KiB batch went in two, and an exit while stdout took nothing came between them,
   * which left stdout ending in the first half of a line. (A single line longer than that can still be cut so.)
   */
  readonly batchLimit = 32 * 1024;
  readonly dropsOnFailure = false;
  /** [0]: bytes the thread has written, [1]: 1 once stdout failed for good (EPIPE), [2]: 1 while lines wait for the thread to finish a batch (it says so when it has: 'message'). */
  private readonly state = new BigInt64Array(new SharedArrayBuffer(24));
  private readonly worker: Worker;
  private handedOver = 0;
  /** The byte lengths of the lines of the batch handed over last, to count the lines of what is left unwritten. */
  private lastBatch: number[] = [];
  private wake: () => void = () => {};

  constructor(fd: number) {
    this.worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { fd, state: this.state }, stdout: false, stderr: false });
    this.worker.on('error', () => this.fail());
    // The thread says when it has written a batch that lines waited for: they go at once, not at a retry.
    this.worker.on('message', () => this.wake());
    // After the listeners (a 'message' listener holds the event loop open again): the logs never keep the process alive.
    this.worker.unref();
  }

  /** `wake` is called each time the thread has written what it was handed (or stdout failed). */
  onIdle(wake: () => void): void {
    this.wake = wake;
  }

  /** Hands whole lines to the thread: answers their bytes, or throws EAGAIN while it still writes the batch before, or EPIPE once stdout is gone. */
  writev(lines: Buffer[]): number {
    if (Atomics.load(this.state, 1) !== 0n) throw errorWithCode('EPIPE');
    if (this.inFlight() > 0) {
      // Asked before looking again: a thread that finishes after the second look sees the ask and says so.
      Atomics.store(this.state, 2, 1n);
      if (this.inFlight() > 0) throw errorWithCode('EAGAIN');
    }
    let length = 0;
    for (const line of lines) length += line.length;
    this.lastBatch = lines.map((line) => line.length);
    // A buffer of its own (not the pool's slab) so its memory moves to the thread instead of being copied.
    const batch = Buffer.allocUnsafeSlow(length);
    let at = 0;
    for (const line of lines) at += line.copy(batch, at);
    this.worker.postMessage(batch.buffer, [batch.buffer]);
    this.handedOver += length;
    return length;
  }

  /**
   * Waits until the thread has written all it was handed, or stdout is gone, or stalledMs pass without a byte
   * written; answers the lines and bytes left unwritten (a line begun counts as one not written).
   */
  settleSync(stalledMs: number): Unwritten {
    let written = Atomics.load(this.state, 0);
    let stalledSince = Date.now();
    for (;;) {
      if (Atomics.load(this.state, 1) !== 0n) return NOTHING_LEFT;
      const left = this.handedOver - Number(written);
      if (left <= 0) return NOTHING_LEFT;
      const waited = Date.now() - stalledSince;
      if (waited >= stalledMs) return { lines: this.linesIn(left), bytes: left };
      Atomics.wait(this.state, 0, written, Math.min(stalledMs - waited, 50));
      const now = Atomics.load(this.state, 0);
      if (now !== written) {
        written = now;
        stalledSince = Date.now();
      }
    }
  }

  close(): void {
    void this.worker.terminate();
  }

  /** How many lines the last `bytes` of the batch handed over last belong to (only that batch can be unwritten). */
  private linesIn(bytes: number): number {
    let lines = 0;
    for (let i = this.lastBatch.length - 1; i >= 0 && bytes > 0; i--, lines++) bytes -= this.lastBatch[i]!;
    return lines;
  }

  private inFlight(): number {
    return this.handedOver - Number(Atomics.load(this.state, 0));
  }

  private fail(): void {
    Atomics.store(this.state, 1, 1n);
    Atomics.notify(this.state, 0);
    this.wake();
  }
}

/** What a sink was handed and has not written. */
export interface Unwritten {
  lines: number;
  bytes: number;
}

const NOTHING_LEFT: Unwritten = { lines: 0, bytes: 0 };

function errorWithCode(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/**
 * The thread: each batch written to its last byte, in order. A stdout that takes nothing now (EAGAIN, a
 * non-blocking socket) is tried again after a sleep of 1 ms doubling to 50; one that fails otherwise (EPIPE:
 * nobody reads any more) is given up, and what comes after is let go.
 */
const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { fd, state } = workerData;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
parentPort.on('message', (arrayBuffer) => {
  if (Atomics.load(state, 1) !== 0n) return;
  const batch = new Uint8Array(arrayBuffer);
  let at = 0;
  let sleepMs = 1;
  while (at < batch.length) {
    try {
      const n = writeSync(fd, batch, at, batch.length - at);
      at += n;
      sleepMs = 1;
      Atomics.add(state, 0, BigInt(n));
      Atomics.notify(state, 0);
    } catch (error) {
      if (error.code === 'EAGAIN' || error.code === 'EINTR') {
        Atomics.wait(sleeper, 0, 0, sleepMs);
        sleepMs = Math.min(sleepMs * 2, 50);
        continue;
      }
      Atomics.store(state, 1, 1n);
      Atomics.notify(state, 0);
      Atomics.store(state, 2, 1n);
      break;
    }
  }
  if (Atomics.exchange(state, 2, 0n) !== 0n) parentPort.postMessage(0);
});
`;
