/**
 * Child processes of the benchmark: each target runs in its own process so it
 * never shares an event loop with the load generator or another target.
 *
 * A child announces itself with one IPC message `{ type: 'ready', ... }`, and
 * stops on `{ type: 'stop' }` or when the parent goes away.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** `.ts` under tsx, `.js` compiled (dist/scripts/bench/): children run the way this file runs, unless asked to run compiled. */
const OWN_EXTENSION = path.extname(fileURLToPath(import.meta.url));
/** Where the compiled bench scripts are (`npm run build`). */
export const COMPILED_BENCH_DIR = path.join(PACKAGE_ROOT, 'dist/scripts/bench');

/** How a child's file runs: a `.ts` file through tsx (as `npm run dev`), a `.js` file as `npm start` runs the gateway. */
export function runnerOf(file: string): string[] {
  return path.extname(file) === '.ts' ? ['--import', 'tsx'] : ['--enable-source-maps'];
}

let built = OWN_EXTENSION === '.js';
/**
 * Builds dist/ once per process when this runs under tsx (scripts/build-if-needed.mjs: tsc's
 * incremental build, what `npm start` runs first), so a compiled child is never a stale one.
 */
function buildOnce(): void {
  if (built) return;
  const result = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'scripts/build-if-needed.mjs')], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`building dist/ for the compiled children failed (exit ${result.status}): run npm run build`);
  built = true;
}

/** The file a child runs: `scripts/bench/<file>` as this file runs (named `x.ts`), its compiled `.js` in dist/ when `compiled`, or an absolute path as it is. */
export function childFile(file: string, compiled = false): string {
  if (path.isAbsolute(file)) return file;
  if (compiled) {
    buildOnce();
    return path.join(COMPILED_BENCH_DIR, file.replace(/\.ts$/, '.js'));
  }
  return path.join(BENCH_DIR, file.replace(/\.ts$/, OWN_EXTENSION));
}

export interface Child<T> {
  process: ChildProcess;
  info: T;
  stop(): Promise<void>;
}

export interface ChildOptions {
  env?: Record<string, string>;
  execArgv?: string[];
  args?: string[];
  timeoutMs?: number;
  /** A file descriptor to write the child's stdout to (the terminal by default). */
  stdout?: 'inherit' | number;
  /** Reads the child's stdout through a pipe, from its first byte. */
  onStdout?: (chunk: Buffer) => void;
  /**
   * Runs the file compiled (dist/scripts/bench/, built first when this runs under tsx) with
   * `npm start`'s flags, whichever way this process runs: what a user runs is measured, not tsx.
   */
  compiled?: boolean;
}

/** Forks `scripts/bench/<file>` (childFile: named `x.ts`; its `.js` when compiled; or an absolute path, taken as it is), run as its extension says (runnerOf), and waits for its ready message (or its failure). */
export async function startChild<T>(
  file: string,
  options: ChildOptions = {},
): Promise<Child<T>> {
  const resolved = childFile(file, options.compiled);
  const child = fork(resolved, options.args ?? [], {
    execArgv: [...runnerOf(resolved), ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    // stdout: the terminal by default; the logs benchmark sends a child's to a file (a descriptor) or reads it.
    stdio: ['ignore', options.onStdout ? 'pipe' : (options.stdout ?? 'inherit'), 'inherit', 'ipc'],
  });
  if (options.onStdout) child.stdout!.on('data', options.onStdout);
  const info = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start within ${options.timeoutMs ?? 120_000} ms`)), options.timeoutMs ?? 120_000);
    child.on('message', (message: { type?: string }) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        resolve(message as T);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited before it was ready (code ${code}, signal ${signal})`));
    });
  });
  return {
    process: child,
    info,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ type: 'stop' });
      }),
  };
}

/** The child's side: report ready, and run `stop` then exit when asked (or when the parent is gone). */
export function serveAsChild(info: Record<string, unknown>, stop: () => Promise<void>): void {
  let stopping = false;
  const end = () => {
    if (stopping) return;
    stopping = true;
    void stop()
      .catch((error: unknown) => process.stderr.write(`stop failed: ${String(error)}\n`))
      .finally(() => process.exit(0));
  };
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') end();
  });
  process.on('disconnect', end);
  process.send!({ type: 'ready', ...info });
}

/** A one-shot child: runs, sends its result as `{ type: 'ready', result }`, and exits. */
export async function runChild<R>(
  file: string,
  options: ChildOptions = {},
): Promise<R> {
  const child = await startChild<{ result: R }>(file, options);
  await child.stop();
  return child.info.result;
}
