import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** tsx by absolute URL: the command may run in a temporary folder, where a bare `tsx` would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run <script> -- <args>` as an author runs it: the script itself in `cwd`, without npm's banner. */
export function runScript(script: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX, path.join(ROOT, 'scripts', script), ...args],
      { cwd: options.cwd ?? ROOT, env: { PATH: process.env.PATH ?? '', ...options.env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}
