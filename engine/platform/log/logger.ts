import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from './log-level.ts';

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
 * writes to stdout through pino's asynchronous destination: a log line costs
 * the request a buffer append, not a write(2) (docs/benchmarks.md, "Logs").
 * Lines still queued when the process ends are not lost: flushLogs() on a
 * graceful stop, and pino's own exit hook (a synchronous flush) on any other
 * exit. Tests pass their own destination.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? stdoutDestination(),
  );
}

type AsyncDestination = ReturnType<typeof pino.destination>;
let stdout: AsyncDestination | null = null;

/** One asynchronous stdout destination per process, however many loggers write to it. */
function stdoutDestination(): AsyncDestination {
  // minLength 0: each line is handed to the kernel as soon as the previous write is done, so a quiet
  // gateway's lines are not held back waiting for a buffer to fill.
  stdout ??= pino.destination({ dest: 1, sync: false, minLength: 0 });
  return stdout;
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
    const timer = setTimeout(() => {
      destination.off('drain', done);
      try {
        destination.flushSync();
      } catch {
        /* stdout gone (EPIPE): nothing more can be written */
      }
      resolve();
    }, timeoutMs);
    function done() {
      clearTimeout(timer);
      resolve();
    }
    destination.once('drain', done);
    // An empty write starts a write when none is under way, so `drain` comes even with nothing queued.
    destination.write('');
  });
}
