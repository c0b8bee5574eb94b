/**
 * The local upstream (its own process): GET /api/records?limit=N answers a
 * precomputed JSON listing of N records (1, 10, 100, 1,000 or 10,000; any
 * other N is 404). Nothing is computed per request but the lookup.
 * BENCH_UPSTREAM_DELAY_MS (0 by default) holds every answer that long: a
 * slow provider (the slow part of the bench: 100 ms).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveAsChild } from './child.ts';
import { listing, RECORD_COUNTS } from './records.ts';

const bodies = new Map<string, Buffer>(RECORD_COUNTS.map((n) => [String(n), Buffer.from(JSON.stringify(listing(n)))]));
const notFound = Buffer.from('{"error":"not found"}');
const delayMs = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 0);

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const limit = q === -1 ? null : new URLSearchParams(url.slice(q + 1)).get('limit');
  const body = path === '/api/records' && limit !== null ? bodies.get(limit) : undefined;
  // Drain any request body before answering (the bench sends none).
  req.resume();
  const answer = () => {
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json', 'content-length': (body ?? notFound).length });
    res.end(body ?? notFound);
  };
  if (delayMs > 0) setTimeout(answer, delayMs);
  else answer();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  serveAsChild({ url, delayMs, sizes: Object.fromEntries([...bodies].map(([n, b]) => [n, b.length])) }, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
