import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ensureBuilt, START_ARGS } from './start-command.ts';
import { osPipe } from '../../scripts/bench/os-pipe.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  /** What its stdout is read from (pause() it to stop reading, as a stalled log shipper). */
  stdoutStream: Readable;
  stderr: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Gateways spawned and not yet exited: killed when the test process exits, so a test that timed out (mocha's limit before ours) leaves none behind. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** For afterEach hooks: a spawned gateway a test left running is killed (SIGKILL) and waited for. */
export async function killIfRunning(gateway: GatewayProcess | null): Promise<void> {
  if (gateway && gateway.child.exitCode === null) {
    gateway.child.kill('SIGKILL');
    await gateway.exited;
  }
}

/**
 * Runs `npm start`'s command (the compiled gateway, dist/ built first) as a real process and waits until it
 * listens. SHUTDOWN_DRAIN_MS is 0 unless `env` sets it, so a SIGTERM stops it at once. `cwd` (the repository
 * by default) is where it looks for `.env`. `stdout`: Node's socket pair (the default) or a pipe of the
 * operating system, as a container runtime gives one.
 */
export async function spawnGateway(env: Record<string, string>, timeoutMs = 60_000, options: { cwd?: string; stdout?: 'socket' | 'os-pipe' } = {}): Promise<GatewayProcess> {
  ensureBuilt();
  const cwd = options.cwd ?? ROOT;
  // From another working directory, the compiled entry is found by its full path.
  const args = START_ARGS.map((arg) => (arg.endsWith('.js') ? path.join(ROOT, arg) : arg));
  const pipe = options.stdout === 'os-pipe' ? osPipe(os.tmpdir()) : null;
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0', ...templateEnv(), ...env },
    stdio: ['ignore', pipe ? pipe.writeFd : 'pipe', 'pipe'],
  });
  if (pipe) closeSync(pipe.writeFd);
  const stdoutStream: Readable = pipe ? pipe.readable : child.stdout!;
  let out = '';
  let err = '';
  stdoutStream.on('data', (chunk) => (out += String(chunk)));
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  running.add(child);
  void exited.then(() => running.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      // A gateway that did not start in time is not left running after the test (nor after the suite).
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start in ${timeoutMs} ms:\n${out}\n${err}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      const match = /"port":(\d+)[^\n]*"msg":"gateway listening"/.exec(out);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, stdout: () => out, stdoutStream, stderr: () => err, exited };
}

/**
 * Waits until the gateway's stdout holds `text` (its log lines arrive through a pipe, so a line the gateway wrote
 * before answering can reach the test after the answer does), failing with what it did print after `timeoutMs`.
 */
export async function waitForStdout(gateway: GatewayProcess, text: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!gateway.stdout().includes(text)) {
    if (Date.now() > deadline) throw new Error(`the gateway did not print ${JSON.stringify(text)} in ${timeoutMs} ms:\n${gateway.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return gateway.stdout();
}

/** Runs a one-shot command (an npm script's command) and collects its output. */
export async function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...templateEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

/** The embedded database template the run made (spec/support/pglite-template.ts), for gateways and commands spawned here. */
function templateEnv(): Record<string, string> {
  return process.env.PGLITE_TEMPLATE_DIR ? { PGLITE_TEMPLATE_DIR: process.env.PGLITE_TEMPLATE_DIR } : {};
}
