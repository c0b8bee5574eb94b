import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from './log-level.ts';
import { DEFAULT_LOG_QUEUE_MAX_BYTES } from './log-queue.ts';
import { openStdoutPipe, type PipeWriter } from './pipe-writer.ts';

export type { Logger };

/**
 * Structured JSON logs. Secrets never reach a log line: request bodies are not
 * logged at all, and these paths are redacted wherever they appear.
 */
export const REDACTED_PATHS = [
  'authorization',
  'req.headers.authorization',
  'headers.authorization',
  'credentials',
  '*.credentials',
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'clientSecret',
  '*.clientSecret',
  'password',
  '*.password',
];

/**
 * The gateway's logger. Without a destination (the process's own logs) it
 * writes to stdout without waiting for stdout's reader: a log line costs the
 * request a buffer append, not a write(2) (docs/benchmarks.md, "Logs").
 * Lines are handed to the kernel 4 KiB at a time, or every 100 ms when fewer
 * come (STDOUT_BATCH_BYTES, STDOUT_FLUSH_MS, below): one write(2) per line
 * cost a busy gateway tens of µs of CPU per request. Lines still queued when
 * the process ends are not lost: flushLogs() on a graceful stop, and a
 * synchronous flush on any other exit. Tests pass their own destination.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, options: StdoutOptions = {}): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? stdoutDestination(options.maxQueuedBytes ?? DEFAULT_LOG_QUEUE_MAX_BYTES),
  );
}

/** How the process's stdout destination is made (by the first logger that writes to it; later ones share it). */
export interface StdoutOptions {
  /** LOG_QUEUE_MAX_BYTES (log-queue.ts): the most bytes of lines held while stdout does not take them. */
  maxQueuedBytes?: number;
}

type AsyncDestination = ReturnType<typeof pino.destination>;
let stdout: AsyncDestination | PipeWriter | null = null;
let stdoutLines: DestinationStream | null = null;

/** Bytes of lines gathered before one write(2) is started. */
export const STDOUT_BATCH_BYTES = 4096;
/** The longest a line waits for a batch to fill: a quiet gateway's lines still reach stdout this soon. */
export const STDOUT_FLUSH_MS = 100;
/** At an exit, how long the lines left wait for a stdout pipe that takes nothing (pipe-writer.ts) before they are given up. */
export const STDOUT_STALLED_EXIT_MS = 2000;

/**
 * One stdout destination per process, however many loggers write to it. It holds the lines as their bytes,
 * each line encoded once as it is written, and writes them in batches of STDOUT_BATCH_BYTES (or after
 * STDOUT_FLUSH_MS). Where stdout is a pipe (a container runtime, a log shipper) a PipeWriter writes them
 * from this thread without ever waiting for the reader (pipe-writer.ts), in order to the last line at an
 * exit; so it does for a file or /dev/null, where a write never waits; anywhere else (a terminal, a socket)
 * a thread of its own writes them, one batch at a time, in order to the last line at an exit too
 * (thread-sink.ts). Only when fd 1 cannot even be looked at (fstat fails) do pino's asynchronous destination
 * (sonic-boom in buffer mode) and libuv's thread pool write them. In sonic-boom's default (text) mode it appends each line
 * to the text gathered so far and asks that text's UTF-8 length, which copies it whole: every line copied
 * the batch before it again (4.2-9 KB allocated a line of ~240 bytes, `npm run bench:logs -- --part=lines`).
 * pino writes strings; `stdoutLines` hands each to the destination as a Buffer. Either destination is
 * flushed synchronously on exit (pino's exit hook, or the PipeWriter's own), and flushLogs() drains it.
 *
 * While stdout takes nothing (a log shipper that stopped reading: the pipe is full), lines wait in the
 * process, at most `maxQueuedBytes` of them: every request adds one, so without a bound a stalled reader
 * would grow the heap until the process died. A line beyond the bound is dropped whole and counted. Once
 * stdout takes lines again, one warning says how many lines and bytes were lost, in their place: before the
 * first line kept after them (or on the destination's `drain`, when none follows).
 */
function stdoutDestination(maxQueuedBytes: number): DestinationStream {
  if (stdoutLines === null) {
    const pipe = openStdoutPipe({ batchBytes: STDOUT_BATCH_BYTES, flushMs: STDOUT_FLUSH_MS, maxQueuedBytes, stalledMs: STDOUT_STALLED_EXIT_MS });
    let destination: AsyncDestination | PipeWriter;
    let writeBytes: (line: Buffer) => void;
    if (pipe) {
      destination = pipe;
      writeBytes = (line) => pipe.write(line);
      process.on('exit', () => pipe.flushSync());
    } else {
      const sonic = pino.destination({ dest: 1, sync: false, minLength: STDOUT_BATCH_BYTES, periodicFlush: STDOUT_FLUSH_MS, contentMode: 'buffer', maxLength: maxQueuedBytes });
      destination = sonic;
      // sonic.write is looked up on each line: on a broken pipe (EPIPE) pino replaces it with a no-op.
      writeBytes = (line) => sonic.write(line as unknown as string);
    }
    stdout = destination;
    const dropped = { lines: 0, bytes: 0 };
    /** Set by the destination's 'drop', which it emits from within write(): whether the line just written was dropped. */
    let lastDropped = false;
    /** Whether stdout has taken bytes since the last line was dropped: only then can a line find room again. */
    let tookBytes = false;
    destination.on('write', () => (tookBytes = true));
    destination.on('drop', (line: Buffer) => {
      lastDropped = true;
      tookBytes = false;
      dropped.lines++;
      dropped.bytes += line.length;
    });
    // The warning is written where the lines went missing: before the next line once stdout has taken some of
    // what waited (there may be room again), or on drain when no line follows. A warning that finds no room is
    // not counted as a lost line; it is tried again once stdout takes more. While nothing is taken, a line
    // costs no more than its own dropped write.
    const notices = pino(
      { base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
      {
        write: (notice: string) => {
          const { lines: droppedLines, bytes: droppedBytes } = dropped;
          lastDropped = false;
          writeBytes(Buffer.from(notice));
          if (lastDropped) {
            dropped.lines = droppedLines;
            dropped.bytes = droppedBytes;
          } else {
            dropped.lines -= droppedLines;
            dropped.bytes -= droppedBytes;
          }
        },
      },
    );
    const noteDropped = () =>
      notices.warn(
        { droppedLines: dropped.lines, droppedBytes: dropped.bytes },
        `log lines dropped: stdout was not read while ${maxQueuedBytes} bytes of lines waited (LOG_QUEUE_MAX_BYTES)`,
      );
    destination.on('drain', () => {
      if (dropped.lines > 0) noteDropped();
    });
    stdoutLines = {
      write: (line: string) => {
        if (dropped.lines > 0 && tookBytes) noteDropped();
        writeBytes(Buffer.from(line));
      },
    };
  }
  return stdoutLines;
}

/**
 * Resolves once every line written so far has reached stdout (the asynchronous
 * destination's `drain`); at most `timeoutMs`, then what is left is written
 * synchronously. Called before a graceful exit.
 */
export function flushLogs(timeoutMs = 2000): Promise<void> {
  const destination = stdout;
  if (!destination) return Promise.resolve();
  return new Promise((resolve) => {
    let finished = false;
    const timer = setTimeout(() => {
      finished = true;
      try {
        destination.flushSync();
      } catch {
        /* stdout gone (EPIPE): nothing more can be written */
      }
      resolve();
    }, timeoutMs);
    function done() {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      resolve();
    }
    // Writes what is gathered (a batch not yet full too) and calls back once everything queued is written.
    destination.flush(() => done());
  });
}
