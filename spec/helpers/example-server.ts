import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './process.ts';

export const EXAMPLE_SERVER = path.join(ROOT, 'examples/embedding/server.mjs');

export interface ExampleServer {
  /** Where the example customer page is served, e.g. http://127.0.0.1:41234 (its origin). */
  origin: string;
  /** What it printed. */
  output: () => string;
  stop(): Promise<void>;
}

/**
 * The example customer backend (examples/embedding/server.mjs) as a customer runs it, `node server.mjs` with
 * GATEWAY_URL and GATEWAY_API_KEY, on 127.0.0.1 at a free port: another origin than the gateway's.
 */
export async function startExampleServer(env: { GATEWAY_URL: string; GATEWAY_API_KEY: string } & Record<string, string>): Promise<ExampleServer> {
  const child: ChildProcess = spawn(process.execPath, [EXAMPLE_SERVER], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example server did not start:\n${output}`)), 15_000);
    const read = (chunk: Buffer) => {
      output += String(chunk);
      const match = /Example customer page: (http:\/\/[^/\s]+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the example server exited with ${code}:\n${output}`));
    });
  });
  return {
    origin,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
