// The example customer backend for the integration gateway's embedded flow. Node 18+, no dependencies.
//
//   GATEWAY_URL=http://localhost:8080 GATEWAY_API_KEY=<your API key> node examples/embedding/server.mjs
//
// It serves index.html (your product's page) on its own origin (http://localhost:3000 by default: add that
// origin to allowedOrigins with PUT /v2/embedding), keeps the API key on the server, and answers the
// signed-in person's end-user token at GET /api/gateway-token: it creates (or finds) the end user with
// POST /v1/users (your own id as externalId, so repeating it is safe) and asks GET /v1/users/{id}/token.
// The browser only ever holds that short-lived token.
//
// Environment: GATEWAY_URL and GATEWAY_API_KEY (required); PORT (3000) and HOST (localhost) to listen on;
// DEMO_USER_ID and DEMO_USER_NAME: the person "signed in" here (a real product takes them from its session).
import { readFile } from 'node:fs/promises';
import http from 'node:http';

const GATEWAY_URL = (process.env.GATEWAY_URL ?? '').replace(/\/+$/, '');
const GATEWAY_API_KEY = process.env.GATEWAY_API_KEY ?? '';
const PORT = Number(process.env.PORT ?? 3000);
const HOST = process.env.HOST ?? 'localhost';
const USER = { externalId: process.env.DEMO_USER_ID ?? 'demo-user-1', name: process.env.DEMO_USER_NAME ?? 'Demo user' };

if (!/^https?:\/\/[^/]+/.test(GATEWAY_URL) || !GATEWAY_API_KEY) {
  console.error('Set GATEWAY_URL (e.g. http://localhost:8080) and GATEWAY_API_KEY (your API key) in the environment.');
  process.exit(2);
}

/** A call to the gateway with the API key (server side only); answers `data`, throws with the gateway's error. */
async function gateway(method, path, body) {
  const response = await fetch(GATEWAY_URL + path, {
    method,
    headers: { Authorization: `Bearer ${GATEWAY_API_KEY}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${answer?.error?.message ?? 'no JSON'}`);
  return answer;
}

/** The signed-in person's end user (created on first use, found after) and a fresh token for their browser. */
async function endUserToken() {
  const created = await gateway('POST', '/v1/users', USER);
  const { token } = await gateway('GET', `/v1/users/${encodeURIComponent(created.data.userId)}/token`);
  return token;
}

const escapeAttribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const page = (await readFile(new URL('./index.html', import.meta.url), 'utf8')).replaceAll('{{GATEWAY_URL}}', escapeAttribute(GATEWAY_URL));

const server = http.createServer(async (req, res) => {
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && (pathname === '/' || pathname === '/index.html')) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end(page);
  } else if (req.method === 'GET' && pathname === '/api/gateway-token') {
    // Same origin only (no CORS headers): another site cannot read the token.
    try {
      const token = await endUserToken();
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ token }));
    } catch (error) {
      console.error(error.message);
      res.writeHead(502, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ error: 'the gateway did not give a token; see the server log' }));
    }
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  }
});

server.listen(PORT, HOST, () => {
  const { port } = server.address();
  const origin = `http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${port}`;
  console.log(`Example customer page: ${origin}/ (gateway ${GATEWAY_URL})`);
  console.log(`Allow this origin once: PUT ${GATEWAY_URL}/v2/embedding {"allowedOrigins": ["${origin}"], "enabledApps": [...]}`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
