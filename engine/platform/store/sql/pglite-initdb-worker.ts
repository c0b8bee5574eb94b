/**
 * A worker thread's entry: creates an empty PGlite database (initdb) in the
 * folder it is given, closes it and ends. Run by pglite-create.ts when the
 * build makes its empty database (dist/pglite-cluster), and on a first start
 * that has none to copy, so the WebAssembly memory initdb grows to (hundreds
 * of MB, which a WebAssembly memory never gives back) goes with the thread
 * instead of staying in the gateway's process for its whole life.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const { dir } = workerData as { dir: string };
try {
  const pg = await PGlite.create(dir);
  await pg.close();
  parentPort!.postMessage({ ok: true });
} catch (error) {
  parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
