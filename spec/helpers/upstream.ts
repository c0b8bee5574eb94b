import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir } from './temp-dir.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export type Handler = (request: ReceivedRequest) => Reply | Promise<Reply>;

/**
 * A third-party app of the tests' own, on 127.0.0.1: each test sets the
 * handler of the routes it uses and reads what the gateway sent.
 */
export class Upstream {
  readonly received: ReceivedRequest[] = [];
  private readonly handlers = new Map<string, Handler>();
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Uint8Array[] = [];
      req.on('data', (chunk: Uint8Array) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://upstream');
        const request: ReceivedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(request);
        const handler = this.handlers.get(`${request.method} ${request.path}`);
        void Promise.resolve(handler ? handler(request) : { status: 404, body: { error: 'no such route in the test upstream' } }).then(async (reply) => {
          if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
          const body = reply.body === undefined ? '' : typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body);
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          res.end(body);
        });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  on(route: string, handler: Handler): void {
    this.handlers.set(route, handler);
  }

  reset(): void {
    this.handlers.clear();
    this.received.length = 0;
  }

  calls(route: string): ReceivedRequest[] {
    return this.received.filter((r) => `${r.method} ${r.path}` === route);
  }

  async stop(): Promise<void> {
    // Never started (a browser spec's before hook skipped without Chromium, its after hook still runs): nothing to stop.
    if (this.server === undefined) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A definitions folder made from a fixture, with `__UPSTREAM__` replaced by the upstream's URL. */
export async function definitionsFor(fixture: string, upstreamUrl: string, extra: Record<string, string> = {}): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const { dir, cleanup } = await tempDir('igw-defs-');
  await fs.cp(fixture, dir, { recursive: true });
  for (const file of await fs.readdir(dir, { recursive: true })) {
    const full = path.join(dir, file);
    if ((await fs.stat(full)).isFile()) await fs.writeFile(full, (await fs.readFile(full, 'utf8')).replaceAll('__UPSTREAM__', upstreamUrl));
  }
  for (const [file, content] of Object.entries(extra)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), content);
  }
  return { dir, cleanup };
}
