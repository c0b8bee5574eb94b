/**
 * `npm run demo:upstream`: a small to-do API on 127.0.0.1 (DEMO_PORT, default
 * 4010) for seeing a real run work offline, behind the bundled `demo-todos`
 * app. It wants `Authorization: Bearer demo-token`, pages with a cursor, and
 * answers like a typical third-party API (nested payloads, 404s, 204 deletes).
 */
import http from 'node:http';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'npm run demo:upstream --',
  summary: 'Serves a small to-do API on 127.0.0.1 (DEMO_PORT, default 4010; token demo-token) behind the bundled demo-todos app, until Ctrl-C.',
  options: {},
  examples: ['npm run demo:upstream', 'DEMO_PORT=4020 npm run demo:upstream'],
};

const DEMO_PORT = process.env.DEMO_PORT ?? '4010';
const port = Number(DEMO_PORT);
const TOKEN = 'demo-token';
const PAGE_SIZE = 3;

interface Todo {
  id: string;
  title: string;
  done: boolean;
  created_at: string;
}

const todos = new Map<string, Todo>();
let nextId = 1;
for (const title of ['Write the definition', 'Run the action', 'Read the envelope', 'Page with the cursor', 'Delete a to-do']) {
  const id = `t${nextId++}`;
  todos.set(id, { id, title, done: false, created_at: new Date(Date.UTC(2026, 0, nextId)).toISOString() });
}

/**
 * `title_contains`: like many search APIs, `*` is a wildcard and a backslash
 * makes the next character literal, which is why the demo app's definition
 * escapes both in what the user types.
 */
function titleMatcher(pattern: string | null): (title: string) => boolean {
  if (pattern === null || pattern === '') return () => true;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else source += c === '*' ? '.*' : escapeRegExp(c);
  }
  const regex = new RegExp(source, 'i');
  return (title) => regex.test(title);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function send(res: http.ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const chunks: Uint8Array[] = [];
  req.on('data', (chunk: Uint8Array) => chunks.push(chunk));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    console.log(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { error: { code: 'unauthorized', message: `send Authorization: Bearer ${TOKEN}` } });
    const match = /^\/v1\/todos(?:\/([^/]+))?$/.exec(url.pathname);
    if (!match) return send(res, 404, { error: { code: 'not_found', message: 'no such endpoint' } });
    const id = match[1] ? decodeURIComponent(match[1]) : undefined;

    if (req.method === 'GET' && !id) {
      const titled = titleMatcher(url.searchParams.get('title_contains'));
      const all = [...todos.values()].filter((t) => (url.searchParams.get('done') === null || String(t.done) === url.searchParams.get('done')) && titled(t.title));
      const start = Number(url.searchParams.get('after') ?? 0);
      const page = all.slice(start, start + PAGE_SIZE);
      const more = start + PAGE_SIZE < all.length;
      return send(res, 200, { result: { todos: page, next_cursor: more ? String(start + PAGE_SIZE) : null } });
    }
    if (req.method === 'GET' && id) {
      const todo = todos.get(id);
      return todo ? send(res, 200, { todo }) : send(res, 404, { error: { code: 'not_found', message: `no to-do ${id}` } });
    }
    if (req.method === 'POST' && !id) {
      let body: { title?: unknown; done?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(res, 400, { error: { code: 'bad_json', message: 'the body is not JSON' } });
      }
      if (typeof body.title !== 'string' || body.title === '') return send(res, 422, { error: { code: 'invalid', message: 'title is required' } });
      const todo: Todo = { id: `t${nextId++}`, title: body.title, done: body.done === true, created_at: new Date().toISOString() };
      todos.set(todo.id, todo);
      return send(res, 201, { todo });
    }
    if (req.method === 'DELETE' && id) {
      return todos.delete(id) ? send(res, 204) : send(res, 404, { error: { code: 'not_found', message: `no to-do ${id}` } });
    }
    return send(res, 405, { error: { code: 'method_not_allowed', message: `${req.method} is not allowed here` } });
  });
});

if (isEntry(import.meta.url) && commandLine(cli)) {
  if (!/^\d{1,5}$/.test(DEMO_PORT.trim()) || port > 65535) {
    process.stderr.write(`DEMO_PORT must be a port, 0 to 65535 (got ${JSON.stringify(DEMO_PORT)})\n${usageLine(cli)}\n`);
    process.exit(2);
  }
  server.listen(port, '127.0.0.1', () => {
    const { port: actual } = server.address() as import('node:net').AddressInfo;
    console.log(`demo to-do API on http://127.0.0.1:${actual}/v1/todos (token: ${TOKEN}); Ctrl-C stops it`);
  });
  process.once('SIGINT', () => server.close(() => process.exit(0)));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
