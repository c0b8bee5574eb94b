/**
 * A worker thread's entry: owns the embedded store's PGlite instance for the
 * store's life, so a query runs here and never on the thread that serves
 * requests (pglite-thread.ts starts it and talks to it).
 *
 * Messages in: `{ id, text, params }` (a query) and `{ close: true }`.
 * Messages out: `{ ready: true }` or `{ ready: false, error }` once, then
 * `{ id, rows, affectedRows }` or `{ id, error }` per query, and
 * `{ closed: true }` before the thread ends. An error crosses as a plain
 * object of PostgreSQL's fields (code, detail, constraint, …): the thread
 * that asked rebuilds it, so sql-errors.ts reads it as before. Rows cross by
 * structured clone: Date, bigint, Uint8Array and JSON values arrive as PGlite
 * parsed them.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

export interface PgliteWorkerData {
  dir: string;
  /** WebAssembly.Module values (compiled once per process) and the file-system bundle's bytes. */
  pgliteWasmModule: object;
  initdbWasmModule: object;
  fsBundle: Uint8Array;
  postgresqlconf: string[];
}

export type PlainError = Record<string, string | number | undefined> & { message: string };
export type ToWorker = { id: number; text: string; params: unknown[] } | { close: true };
export type FromWorker =
  | { ready: true }
  | { ready: false; error: PlainError }
  | { id: number; rows: unknown[]; affectedRows: number | undefined }
  | { id: number; error: PlainError }
  | { closed: true };

/** The fields PostgreSQL (and PGlite's DatabaseError) give an error, besides its message. */
const ERROR_FIELDS = ['name', 'code', 'severity', 'detail', 'hint', 'position', 'where', 'schema', 'table', 'column', 'dataType', 'constraint', 'routine'];

export function plainError(error: unknown): PlainError {
  const plain: PlainError = { message: error instanceof Error ? error.message : String(error) };
  for (const field of ERROR_FIELDS) {
    const value = (error as Record<string, unknown> | null)?.[field];
    if (typeof value === 'string' || typeof value === 'number') plain[field] = value;
  }
  return plain;
}

/** A trap of the WebAssembly machine (WebAssembly.RuntimeError), or Emscripten's abort: not an SQL error. */
function wasmStopped(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown } | null;
  return e?.name === 'RuntimeError' || (typeof e?.message === 'string' && e.message.startsWith('Aborted('));
}

if (parentPort && workerData && typeof (workerData as PgliteWorkerData).dir === 'string') await serve(parentPort, workerData as PgliteWorkerData);

async function serve(port: MessagePort, data: PgliteWorkerData): Promise<void> {
  const post = (message: FromWorker) => port.postMessage(message);
  let pg: PGlite;
  try {
    const { dir, fsBundle, ...options } = data;
    pg = await PGlite.create(dir, { ...(options as object), fsBundle: new Blob([fsBundle]) });
    post({ ready: true });
  } catch (error) {
    // Told to the thread that asked, which ends this one.
    post({ ready: false, error: plainError(error) });
    port.close();
    return;
  }
  port.on('message', (message: ToWorker) => {
    if ('close' in message) {
      const closed = () => {
        post({ closed: true });
        port.close();
      };
      void pg.close().then(closed, closed);
      return;
    }
    pg.query(message.text, message.params as unknown[]).then(
      (result) => {
        try {
          post({ id: message.id, rows: result.rows, affectedRows: result.affectedRows });
        } catch (error) {
          // A value structured clone cannot carry: that query's error, not the thread's end.
          post({ id: message.id, error: plainError(error) });
        }
      },
      (error: unknown) => {
        // PostgreSQL's WebAssembly stopped (out of memory, a trap): this instance is unusable. Thrown here, it ends
        // the thread with its reason, and the thread that asked answers STORE_UNAVAILABLE and starts another.
        if (wasmStopped(error)) throw error;
        post({ id: message.id, error: plainError(error) });
      },
    );
  });
}
