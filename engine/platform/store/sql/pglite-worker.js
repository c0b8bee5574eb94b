/**
 * A worker thread's entry: owns the embedded store's PGlite instance for the
 * store's life, so a query runs here and never on the thread that serves
 * requests (pglite-thread.ts starts it and talks to it; the messages' types
 * are there).
 *
 * Plain JavaScript on purpose: it imports only node:worker_threads and PGlite,
 * so the thread needs no TypeScript loader. Registering tsx in a worker (what a
 * TypeScript entry needs, see parallel-analysis.ts) cost 5 to 9 s more per start
 * than importing PGlite at a load average of 20 on 2 CPUs, and every gateway
 * (every test gateway) starts one.
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
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** The fields PostgreSQL (and PGlite's DatabaseError) give an error, besides its message. */
const ERROR_FIELDS = ['name', 'code', 'severity', 'detail', 'hint', 'position', 'where', 'schema', 'table', 'column', 'dataType', 'constraint', 'routine'];

/** An error as a plain object structured clone carries whole. */
function plainError(error) {
  const plain = { message: messageOf(error) };
  for (const field of ERROR_FIELDS) {
    const value = error?.[field];
    if (typeof value === 'string' || typeof value === 'number') plain[field] = value;
  }
  return plain;
}

/**
 * An error's message. Emscripten's file system throws plain objects (an ErrnoError with an errno and no
 * message) where the disk is full or read-only: String() of one said "[object Object]" at a failed start.
 */
function messageOf(error) {
  if (error instanceof Error) return error.message;
  if (error !== null && typeof error === 'object') {
    if (typeof error.message === 'string' && error.message !== '') return error.message;
    if (typeof error.errno === 'number') return `the embedded database's file system failed (errno ${error.errno}${typeof error.code === 'string' ? `, ${error.code}` : ''}): is DATA_DIR's disk full or read-only?`;
  }
  return String(error);
}

/** A trap of the WebAssembly machine (WebAssembly.RuntimeError), or Emscripten's abort: not an SQL error. */
function wasmStopped(error) {
  return error?.name === 'RuntimeError' || (typeof error?.message === 'string' && error.message.startsWith('Aborted('));
}

async function serve(port, data) {
  const post = (message) => port.postMessage(message);
  let pg;
  try {
    const { dir, fsBundle, ...options } = data;
    pg = await PGlite.create(dir, { ...options, fsBundle: new Blob([fsBundle]) });
    post({ ready: true });
  } catch (error) {
    // Told to the thread that asked, which ends this one.
    post({ ready: false, error: plainError(error) });
    port.close();
    return;
  }
  port.on('message', (message) => {
    if (message.close) {
      const closed = () => {
        post({ closed: true });
        port.close();
      };
      void pg.close().then(closed, closed);
      return;
    }
    pg.query(message.text, message.params).then(
      (result) => {
        try {
          post({ id: message.id, rows: result.rows, affectedRows: result.affectedRows });
        } catch (error) {
          // A value structured clone cannot carry: that query's error, not the thread's end.
          post({ id: message.id, error: plainError(error) });
        }
      },
      (error) => {
        // PostgreSQL's WebAssembly stopped (out of memory, a trap): this instance is unusable. Thrown here, it ends
        // the thread with its reason, and the thread that asked answers STORE_UNAVAILABLE and starts another.
        if (wasmStopped(error)) throw error;
        post({ id: message.id, error: plainError(error) });
      },
    );
  });
}

if (parentPort && typeof workerData?.dir === 'string') await serve(parentPort, workerData);
