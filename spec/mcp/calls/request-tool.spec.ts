import { expect } from 'chai';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { listTools, mcpClient } from '../helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: the <app>_request tool (a request of the agent\'s own through the proxy)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let storeMain: string;
  let storeBackup: string;
  let gone: string;
  const clients: Client[] = [];
  const connect = async (headers: Record<string, string>) => {
    const client = await mcpClient(gw.url, headers);
    clients.push(client);
    return client;
  };
  const asCompany = (...ids: string[]) => connect({ Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': ids.join(',') });
  const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', MCP_RESULT_MAX_CHARS: '1000' });
    const create = async (appSlug: string, name: string, credentials: Record<string, string>) =>
      (await call(gw, 'POST', '/v2/connections', { body: { appSlug, name, credentials } })).body.data.id as string;
    storeMain = await create('store', 'Main store', { apiKey: 'main-key' });
    storeBackup = await create('store', 'Backup store', { apiKey: 'backup-key' });
    gone = await create('gone', 'Gone', { token: 'gone-token' });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => upstream.reset());

  it('is listed once per app whose API allows the proxy, with method, path, query, headers and body, and not for an app with proxy: false', async () => {
    const tools = await listTools(await asCompany(storeMain, gone));
    const names = tools.map((t) => t.name);
    expect(names).to.include('store_request');
    expect(names).not.to.include('gone_request');
    const request = tools.find((t) => t.name === 'store_request')!;
    expect(request.title).to.equal('Store: any API request');
    expect(request.description).to.include(`${upstream.url}/api`).and.include(`Runs in Store as "Main store" (connection ${storeMain})`);
    expect((request.inputSchema as any).required).to.deep.equal(['method', 'path']);
    expect((request.inputSchema as any).properties.method.enum).to.deep.equal(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    expect(Object.keys((request.inputSchema as any).properties)).to.deep.equal(['method', 'path', 'query', 'headers', 'body']);
    expect(request.annotations).to.deep.include({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  it("names the base URL requests really go to: APP_BASE_URLS's for the app where it sets one", async () => {
    const defs = await definitionsFor(FIXTURE, upstream.url);
    const sandbox = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', APP_BASE_URLS: JSON.stringify({ store: `${upstream.url}/sandbox` }) });
    try {
      const id = (await call(sandbox, 'POST', '/v2/connections', { body: { appSlug: 'store', credentials: { apiKey: 'sandbox-key' } } })).body.data.id as string;
      const client = await mcpClient(sandbox.url, { Authorization: `Bearer ${sandbox.apiKey}`, 'Connection-Id': id });
      clients.push(client);
      const request = (await listTools(client)).find((t) => t.name === 'store_request')!;
      expect(request.description).to.include(`The API's base URL is ${upstream.url}/sandbox;`);
    } finally {
      await sandbox.stop();
      await defs.cleanup();
    }
  });

  it("sends the agent's request with the connection's credential and answers the app's status, headers and JSON body, its secrets redacted", async () => {
    upstream.on('GET /api/reports/daily', (req) => ({ headers: { link: '<next>; rel="next"' }, body: { day: req.query.get('day'), echoedKey: req.headers['x-api-key'] } }));
    const client = await asCompany(storeMain);
    const result: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/reports/daily', query: { day: '2026-11-29' } } });
    expect(result.isError, text(result)).to.equal(false);
    const [sent] = upstream.calls('GET /api/reports/daily');
    expect(sent!.headers['x-api-key']).to.equal('main-key');
    expect(sent!.query.get('day')).to.equal('2026-11-29');
    expect(result.structuredContent.status).to.equal(200);
    expect(result.structuredContent.headers.link).to.equal('<next>; rel="next"');
    expect(result.structuredContent.body.day).to.equal('2026-11-29');
    expect(JSON.stringify(result)).not.to.include('main-key');
    expect(text(result).split('\n')[0]).to.equal('HTTP 200');
    expect(gw.logs()).to.match(/"path":"\/mcp".*"app":"store","action":"\(proxy\)".*"outcome":"success"/);
  });

  it('sends a JSON body with POST, and names the account with connectionId when two are in scope', async () => {
    upstream.on('POST /api/notes', (req) => ({ status: 201, body: { id: 'n1', got: JSON.parse(req.body), type: req.headers['content-type'] } }));
    const client = await asCompany(storeMain, storeBackup);
    const request = (await listTools(client)).find((t) => t.name === 'store_request')!;
    expect((request.inputSchema as any).required).to.deep.equal(['connectionId', 'method', 'path']);
    const result: any = await client.callTool({ name: 'store_request', arguments: { connectionId: storeBackup, method: 'POST', path: 'notes', body: { text: 'hello' } } });
    expect(result.isError, text(result)).to.equal(false);
    expect(result.structuredContent).to.deep.include({ status: 201 });
    expect(result.structuredContent.body).to.deep.equal({ id: 'n1', got: { text: 'hello' }, type: 'application/json' });
    expect(upstream.calls('POST /api/notes')[0]!.headers['x-api-key']).to.equal('backup-key');
  });

  it("an app's error answer is a result with isError and the app's status and body", async () => {
    upstream.on('DELETE /api/orders/o9', () => ({ status: 404, body: { code: 'order_missing' } }));
    const result: any = await (await asCompany(storeMain)).callTool({ name: 'store_request', arguments: { method: 'DELETE', path: '/orders/o9' } });
    expect(result.isError).to.equal(true);
    expect(result.structuredContent).to.deep.include({ status: 404, body: { code: 'order_missing' } });
    expect(text(result).split('\n')[0]).to.equal('HTTP 404 (the app answered with an error)');
  });

  it('bad arguments and a path that climbs out of the app are refused naming the field and the rule, and nothing reaches the app', async () => {
    const client = await asCompany(storeMain);
    const bad: any = await client.callTool({ name: 'store_request', arguments: { method: 'TRACE', path: '', body: 1, extra: true } });
    expect(bad.isError).to.equal(true);
    expect(text(bad)).to.equal(
      [
        'The arguments need fixing (nothing was sent to the app):',
        '- extra: is not an argument of this tool (its arguments: method, path, query, headers, body) (rule: unknown)',
        '- method: must be one of GET, POST, PUT, PATCH, DELETE (got "TRACE") (rule: option)',
        '- path: is required: the path under the app\'s base URL, e.g. /users/42 (rule: required)',
      ].join('\n'),
    );
    const withBody: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/x', body: { a: 1 } } });
    expect(text(withBody)).to.include('- body: a GET sends no body (rule: forbidden)');
    const climbing: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/../admin' } });
    expect(climbing.isError).to.equal(true);
    expect(climbing.structuredContent.error.code).to.equal('VALIDATION_ERROR');
    expect(text(climbing)).to.match(/^The arguments need fixing \(nothing was sent to the app\):\n- path: .+ \(rule: [a-z-]+\)$/);
    expect(upstream.received).to.have.length(0);
  });

  it('caps the text at MCP_RESULT_MAX_CHARS and says so; structuredContent keeps a body that fits the read limit', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({ id: `r${i}`, note: 'y'.repeat(30) }));
    upstream.on('GET /api/rows', () => ({ body: { rows } }));
    const result: any = await (await asCompany(storeMain)).callTool({ name: 'store_request', arguments: { method: 'GET', path: '/rows' } });
    expect(result.isError).to.equal(false);
    expect(text(result).length).to.be.at.most(1000);
    expect(text(result)).to.match(/\[the answer is \d+ characters: the text shows the first \d+; structuredContent\.body holds it whole\]$/);
    expect(result.structuredContent.body.rows).to.have.length(60);
  });

  it('reads four times MCP_RESULT_MAX_CHARS bytes of the answer: a body of exactly that many is whole, one byte more is not, and the note says how many were read', async () => {
    const sized = (bytes: number) => `{"pad":"${'z'.repeat(bytes - 10)}"}`;
    upstream.on('GET /api/exact', () => ({ body: sized(4000) }));
    upstream.on('GET /api/over', () => ({ body: sized(4001) }));
    const client = await asCompany(storeMain);
    const exact: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/exact' } });
    expect(exact.structuredContent.truncated).to.equal(undefined);
    expect(exact.structuredContent.body.pad).to.have.length(3990);
    const over: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/over' } });
    expect(over.structuredContent.truncated).to.equal(true);
    expect(text(over)).to.match(/\[the answer is longer than 4000 bytes: the text shows the first \d+ characters and the rest was not read; ask for less \(the app's paging or filter parameters\)\]$/);
  });

  it('an end user gets the tool only where the company opened the proxy to end users (PUT /v2/embedding endUserProxy)', async () => {
    upstream.on('GET /desk/me', () => ({ body: { login: 'ada' } }));
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada-request' } })).body.data.userId;
    const token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['desk'] } })).status).to.equal(200);
    await call({ url: gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', { body: { appSlug: 'desk', credentials: { token: 'ada-desk' } } });
    expect((await listTools(await connect({ Authorization: `Bearer ${token}` }))).map((t) => t.name)).to.deep.equal(['desk_list-tickets']);
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['desk'], endUserProxy: true } })).status).to.equal(200);
    const client = await connect({ Authorization: `Bearer ${token}` });
    expect((await listTools(client)).map((t) => t.name)).to.deep.equal(['desk_list-tickets', 'desk_request']);
    const result: any = await client.callTool({ name: 'desk_request', arguments: { method: 'GET', path: '/me' } });
    expect(result.structuredContent.body).to.deep.equal({ login: 'ada' });
    expect(upstream.calls('GET /desk/me')[0]!.headers.authorization).to.equal('Bearer ada-desk');
  });
});
