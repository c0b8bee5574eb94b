import { Worker } from 'node:worker_threads';
import { storeUnavailableError } from '../store-unavailable.ts';

/** What the worker (pglite-worker.js) is started with. */
export interface PgliteWorkerData {
  dir: string;
  /** WebAssembly.Module values (compiled once per process, shared with the thread) and the file-system bundle's bytes. */
  pgliteWasmModule: object;
  initdbWasmModule: object;
  fsBundle: Uint8Array;
  postgresqlconf: string[];
}

/** An error as the worker sends it: its message and PostgreSQL's fields (code, detail, constraint, …). */
type PlainError = Record<string, string | number | undefined> & { message: string };
type ToWorker = { id: number; text: string; params: unknown[] } | { close: true };
type FromWorker =
  | { ready: true }
  | { ready: false; error: PlainError }
  | { id: number; rows: unknown[]; affectedRows: number | undefined }
  | { id: number; error: PlainError }
  | { closed: true };

/** What the dialect needs of PGlite: one query at a time, its rows and the rows a write changed. */
export interface PgliteQueryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

/**
 * Queries one holder of the connection may have sent and not had answered. The dialect's pool gives the
 * connection to one holder at a time, and a holder waits for each answer (Kysely's queries are sequential),
 * so more than one is rare; past this many something is wrong, and the query is refused rather than queued.
 */
export const MAX_PENDING_QUERIES = 64;

/** After the thread stopped, how long requests are answered STORE_UNAVAILABLE before the next one starts it again. */
export const RESTART_AFTER_MS = 5_000;

/** How long close() waits for PGlite to close its files before it ends the thread anyway. */
const CLOSE_WAIT_MS = 30_000;

/**
 * A worker thread's V8 heap, in MB (PGlite's database lives in WebAssembly memory, outside it): rows parsed
 * for an answer. A worker past it stops itself (and is started again), not the process.
 */
const WORKER_HEAP_MB = 256;

export interface PgliteThreadOptions {
  /** The thread stopped while in use (out of memory, a WebAssembly trap): logged, with the reason. */
  onStopped?: (reason: string) => void;
  /** RESTART_AFTER_MS unless given (the specs wait less). */
  restartAfterMs?: number;
}

/**
 * The embedded store's PGlite, run in a worker thread of its own
 * (pglite-worker.js): a query, however long, never holds the thread that
 * serves requests, which only posts it and is told the answer.
 *
 * `session()` gives the dialect a connection bound to the running thread. If
 * the thread stops (a crash, out of memory), every query sent to it and not
 * answered, and every later query of a session bound to it (a transaction
 * under way), rejects with 503 STORE_UNAVAILABLE naming the reason: never a
 * hang, never a write half in one thread and half in the next. The next
 * session starts a new thread (PostgreSQL replays its log, as after kill -9),
 * at most once every RESTART_AFTER_MS.
 */
export class PgliteThread {
  private running: Promise<Running> | null = null;
  /** The thread `running` started, once it has. */
  private current: Running | null = null;
  private stopped: { reason: string; at: number } | null = null;
  private closed = false;

  private constructor(
    private readonly data: PgliteWorkerData,
    private readonly options: PgliteThreadOptions,
  ) {}

  /** Starts the thread and opens the database; PGlite's own error (a damaged data directory) if it cannot. */
  static async start(data: PgliteWorkerData, options: PgliteThreadOptions = {}): Promise<PgliteThread> {
    const thread = new PgliteThread(data, options);
    thread.running = startRunning(data, (reason) => thread.onStop(reason));
    thread.current = await thread.running;
    return thread;
  }

  /** Whether a thread is running now (false once closed, or stopped and not started again yet). */
  get alive(): boolean {
    return this.current?.alive ?? false;
  }

  async session(): Promise<PgliteQueryable> {
    if (this.closed) throw storeUnavailableError('the embedded store is closed');
    if (this.stopped) {
      if (Date.now() - this.stopped.at < (this.options.restartAfterMs ?? RESTART_AFTER_MS)) throw storeUnavailableError(`its thread stopped: ${this.stopped.reason}`);
      this.stopped = null;
      this.running = startRunning(this.data, (reason) => this.onStop(reason));
    }
    const running = this.running!;
    try {
      return (this.current = await running);
    } catch (error) {
      if (this.running === running && !this.stopped) {
        this.stopped = { reason: (error as Error).message, at: Date.now() };
        this.options.onStopped?.(`it could not start again: ${(error as Error).message}`);
      }
      throw storeUnavailableError(`its thread could not start: ${(error as Error).message}`);
    }
  }

  /** Closes the database and ends the thread; resolves once the thread is gone. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const running = await this.running?.catch(() => null);
    await running?.close();
  }

  /** Kills the thread at once, as a crash would (the specs' stand-in for an out-of-memory end). */
  async kill(): Promise<void> {
    const running = await this.running?.catch(() => null);
    await running?.kill();
  }

  private onStop(reason: string): void {
    if (this.closed) return;
    this.stopped = { reason, at: Date.now() };
    this.options.onStopped?.(reason);
  }
}

/** One worker and its database, for its life. */
interface Running extends PgliteQueryable {
  readonly alive: boolean;
  close(): Promise<void>;
  kill(): Promise<void>;
}

function startRunning(data: PgliteWorkerData, onStop: (reason: string) => void): Promise<Running> {
  return new Promise<Running>((resolveStart, rejectStart) => {
    const worker = new Worker(WORKER_SCRIPT, { eval: true, workerData: data, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const pending = new Map<number, { resolve: (result: { rows: unknown[]; affectedRows?: number }) => void; reject: (error: unknown) => void }>();
    let nextId = 1;
    let started = false;
    let closing = false;
    let failure: Error | undefined;
    let exited: string | null = null;
    const whenExited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Referenced only while a query waits: a store someone forgot to close does not keep a script's process alive.
    const holdWhilePending = () => (pending.size ? worker.ref() : worker.unref());

    worker.on('error', (error) => (failure = error));
    worker.on('message', (message: FromWorker) => {
      if ('ready' in message) {
        if (message.ready) {
          started = true;
          worker.unref();
          resolveStart(running);
        } else {
          void worker.terminate();
          rejectStart(rebuilt(message.error));
        }
        return;
      }
      if ('closed' in message) return;
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      holdWhilePending();
      if ('error' in message) waiting.reject(rebuilt(message.error));
      else waiting.resolve({ rows: message.rows, affectedRows: message.affectedRows });
    });
    worker.once('exit', (code) => {
      exited = failure?.message ?? (closing ? 'the store was closed' : `the thread ended (exit code ${code})`);
      if (!started) rejectStart(failure ?? new Error(exited));
      const error = storeUnavailableError(`its thread stopped: ${exited}`);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
      if (started && !closing) onStop(exited);
    });

    const running: Running = {
      get alive() {
        return exited === null;
      },
      query<R>(text: string, params: unknown[] = []) {
        if (exited !== null) return Promise.reject(storeUnavailableError(`its thread stopped: ${exited}`));
        if (pending.size >= MAX_PENDING_QUERIES) return Promise.reject(storeUnavailableError(`${pending.size} queries are waiting for it`));
        return new Promise<{ rows: R[]; affectedRows?: number }>((resolve, reject) => {
          const id = nextId++;
          // Throws (DataCloneError) for a value a thread cannot be sent: this query's error.
          worker.postMessage({ id, text, params } satisfies ToWorker);
          pending.set(id, { resolve: resolve as (result: { rows: unknown[]; affectedRows?: number }) => void, reject });
          holdWhilePending();
        });
      },
      async close() {
        if (exited === null && !closing) {
          closing = true;
          worker.ref();
          worker.postMessage({ close: true } satisfies ToWorker);
          const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
          await whenExited;
          clearTimeout(timer);
        }
        await whenExited;
      },
      async kill() {
        await worker.terminate();
      },
    };
  });
}

/** An error the worker sent, made an Error again with PostgreSQL's fields (sql-errors.ts reads `code`, `constraint`…). */
function rebuilt(plain: PlainError): Error {
  const { message, name, ...fields } = plain;
  const error = Object.assign(new Error(message), fields);
  if (typeof name === 'string') Object.defineProperty(error, 'name', { value: name, configurable: true, writable: true });
  return error;
}

/** The store's worker: plain JavaScript, the same file in engine/ and dist/ (pglite-worker.js says why). */
const WORKER_SCRIPT = `import(${JSON.stringify(new URL('./pglite-worker.js', import.meta.url).href)});`;
