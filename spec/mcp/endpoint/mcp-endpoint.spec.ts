import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';
import { listTools, mcpClient, type Era } from '../helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: the MCP endpoint (the SDK client over HTTP)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let storeMain: string;
  let storeBackup: string;
  let desk: string;
  let gone: string;
  let defsDir: string;
  const clients: Client[] = [];
  const connect = async (headers: Record<string, string>, era: Era = 'modern') => {
    const client = await mcpClient(gw.url, headers, era);
    clients.push(client);
    return client;
  };
  const asCompany = (connectionIds: string[], era: Era = 'modern') => connect({ Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': connectionIds.join(',') }, era);
  const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    defsDir = defs.dir;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', MCP_RESULT_MAX_CHARS: '1000' });
    const create = async (appSlug: string, name: string, credentials: Record<string, string>) =>
      (await call(gw, 'POST', '/v2/connections', { body: { appSlug, name, credentials } })).body.data.id as string;
    storeMain = await create('store', 'Main store', { apiKey: 'main-key' });
    storeBackup = await create('store', 'Backup store', { apiKey: 'backup-key' });
    desk = await create('desk', 'Support desk', { token: 'desk-token' });
    gone = await create('gone', 'Gone', { token: 'gone-token' });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => upstream.reset());

  for (const era of ['modern', 'legacy'] as const) {
    it(`lists one tool per action of the named connection's app, <app>_<action>, with titles, schemas and annotations (${era} era)`, async () => {
      const client = await asCompany([storeMain], era);
      const tools = await listTools(client);
      expect(tools.map((t) => t.name)).to.deep.equal([
        'store_create-order',
        'store_delete-order',
        'store_get-order',
        'store_link-account',
        'store_list-orders',
        'store_refund-order',
        'store_request',
        'store_schedule-order',
        'store_update-order',
      ]);
      const list = tools.find((t) => t.name === 'store_list-orders')!;
      expect(list.title).to.equal('Store: List orders');
      expect(list.description).to.equal('Lists the store\'s orders, newest first.\n\nRuns in Store as "Main store" (connection ' + storeMain + ').');
      expect(list.annotations).to.deep.include({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      expect(list.inputSchema).to.deep.equal({
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['open', 'paid'], description: 'Only orders in this state. One of: "open" (Open), "paid" (Paid).' },
          limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many orders per page.', default: 20 },
          cursor: { type: 'string', description: 'For the next page: the meta.cursor of the previous result, unchanged. Leave it out for the first page.' },
        },
        additionalProperties: false,
      });
      expect(tools.find((t) => t.name === 'store_delete-order')!.annotations).to.deep.include({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
      expect(tools.find((t) => t.name === 'store_create-order')!.annotations).to.deep.include({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    });
  }

  it('calls a tool through the same run as the universal endpoint: the connection\'s credential reaches the app, hidden arguments go with their defaults, data is structuredContent and text', async () => {
    upstream.on('GET /api/orders', () => ({ body: { orders: [{ id: 'o1' }, { id: 'o2' }], next: 'page-2' } }));
    const client = await asCompany([storeMain]);
    const result: any = await client.callTool({ name: 'store_list-orders', arguments: { status: 'open' } });
    expect(result.isError).to.equal(false);
    expect(result.structuredContent.data).to.deep.equal([{ id: 'o1' }, { id: 'o2' }]);
    expect(result.structuredContent.meta.cursor).to.be.a('string');
    expect(JSON.parse(text(result))).to.deep.equal(result.structuredContent);
    const [sent] = upstream.calls('GET /api/orders');
    expect(sent!.headers['x-api-key']).to.equal('main-key');
    expect(Object.fromEntries(sent!.query)).to.deep.equal({ status: 'open', limit: '20', region: 'eu' });
    expect(JSON.stringify(result)).not.to.include('main-key');
    // The run is in the request log line as a run of the universal endpoint is.
    expect(gw.logs()).to.match(/"path":"\/mcp".*"app":"store","action":"list-orders".*"connectionId":"con_[^"]+".*"outcome":"success"/);
    expect(gw.logs()).not.to.include('main-key');
  });

  it("pages: the result's meta.cursor, sent back as the cursor argument, fetches the next page", async () => {
    upstream.on('GET /api/orders', (req) => (req.query.get('page_cursor') === 'page-2' ? { body: { orders: [{ id: 'o3' }] } } : { body: { orders: [{ id: 'o1' }], next: 'page-2' } }));
    const client = await asCompany([storeMain]);
    const first: any = await client.callTool({ name: 'store_list-orders', arguments: {} });
    const second: any = await client.callTool({ name: 'store_list-orders', arguments: { cursor: first.structuredContent.meta.cursor } });
    expect(second.structuredContent.data).to.deep.equal([{ id: 'o3' }]);
    expect(second.structuredContent.meta).to.deep.equal({});
    expect(upstream.calls('GET /api/orders')[1]!.query.get('page_cursor')).to.equal('page-2');
  });

  it('caps the text at MCP_RESULT_MAX_CHARS with whole rows, says how many are shown and gives the cursor; structuredContent keeps every row', async () => {
    const orders = Array.from({ length: 40 }, (_, i) => ({ id: `o${i}`, note: 'x'.repeat(40) }));
    upstream.on('GET /api/orders', () => ({ body: { orders, next: 'page-2' } }));
    const client = await asCompany([storeMain]);
    const result: any = await client.callTool({ name: 'store_list-orders', arguments: {} });
    const shown = text(result);
    expect(shown.length).to.be.at.most(1000);
    expect(result.structuredContent.data).to.have.length(40);
    const [json, note] = shown.split('\n[');
    const rows = JSON.parse(json!).data;
    expect(rows.length).to.be.within(1, 39);
    expect(rows).to.deep.equal(orders.slice(0, rows.length));
    expect(note).to.include(`${rows.length} of 40 rows shown`).and.include(`cursor ${JSON.stringify(result.structuredContent.meta.cursor)}`);
  });

  it('bad arguments are a tool result with isError naming the field and the rule, and nothing reaches the app', async () => {
    const client = await asCompany([storeMain]);
    const result: any = await client.callTool({ name: 'store_list-orders', arguments: { status: 'lost', limit: 500, region: 'us', colour: 'red' } });
    expect(result.isError).to.equal(true);
    expect(text(result)).to.equal(
      [
        'The arguments need fixing (nothing was sent to the app):',
        '- colour: is not an argument of action list-orders (its arguments: status, limit, cursor) (rule: unknown)',
        '- status: must be one of "open", "paid" (got "lost") (rule: option)',
        '- limit: must be at most 100 (got 500) (rule: maximum)',
        '- region: is hidden: it cannot be set, it always sends its default (rule: hidden)',
      ].join('\n'),
    );
    expect(result.structuredContent.error.code).to.equal('VALIDATION_ERROR');
    expect(upstream.received).to.have.length(0);
  });

  it("an app's failure is a tool result with isError and the app's error, never a protocol error", async () => {
    upstream.on('GET /api/orders/o404', () => ({ status: 404, body: { code: 'order_missing', message: 'no order o404' } }));
    const client = await asCompany([storeMain]);
    const result: any = await client.callTool({ name: 'store_get-order', arguments: { orderId: 'o404' } });
    expect(result.isError).to.equal(true);
    expect(text(result).split('\n')[0]).to.equal('The app answered with an error: order_missing: no order o404 (HTTP 404)');
    expect(result.structuredContent.appError).to.deep.include({ status: 404, code: 'order_missing', message: 'no order o404' });
  });

  it('an app that cannot be reached is a tool result with isError saying so, as the REST answer says it', async () => {
    const client = await asCompany([gone]);
    const result: any = await client.callTool({ name: 'gone_ping', arguments: {} });
    expect(result.isError).to.equal(true);
    const rest = await call(gw, 'POST', '/v2/universal/apps/gone/actions/ping/run', { body: { connectionId: gone } });
    expect(rest.status).to.equal(502);
    expect(text(result)).to.equal(`${rest.body.error.code}: ${rest.body.error.message}`);
    expect(result.structuredContent).to.deep.equal({ error: { code: rest.body.error.code, message: rest.body.error.message } });
  });

  it('tells an open subscriptions/listen stream when the definitions reload (notifications/tools/list_changed); tools/list then shows the change', async () => {
    const client = await asCompany([storeMain]);
    const told = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', async () => resolve()));
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).to.deep.include({ toolsListChanged: true });
    const file = path.join(defsDir, 'store/versions/1/actions/cancel-order.yaml');
    await fs.writeFile(file, 'id: cancel-order\nslug: cancel-order\nname: Cancel an order\noperation: other\nmethod: POST\npath: /orders/cancel\n');
    try {
      await gw.gateway.services.definitions.reload('spec');
      await told;
      const cancel = (await listTools(client)).find((t) => t.name === 'store_cancel-order');
      expect(cancel?.annotations).to.deep.include({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    } finally {
      await subscription.close();
      await fs.rm(file);
      await gw.gateway.services.definitions.reload('spec');
    }
  });

  it("answers a tool whose app answered JSON nested thousands deep with an error result saying so, not an internal error", async () => {
    const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;
    upstream.on('GET /desk/tickets', () => ({ headers: { 'content-type': 'application/json' }, body: `{"tickets":[${deep}]}` }));
    const client = await asCompany([desk]);
    const result: any = await client.callTool({ name: 'desk_list-tickets', arguments: {} });
    expect(result.isError).to.equal(true);
    expect(text(result)).to.match(/^UPSTREAM_PROTOCOL_ERROR: the app's answer nests JSON more than 1000 levels deep/);
  });

  it('an unknown tool is a protocol error (invalid params), as the specification says', async () => {
    const client = await asCompany([storeMain]);
    const error: any = await client.callTool({ name: 'desk_list-tickets', arguments: {} }).catch((e: unknown) => e);
    expect(error.code).to.equal(-32602);
    expect(error.message).to.include('unknown tool "desk_list-tickets"');
  });

  it('promises tools list_changed notices only where one can reach the client: a 2026-07-28 client (subscriptions/listen), not one that opened with initialize (no GET stream is served)', async () => {
    expect((await asCompany([storeMain], 'modern')).getServerCapabilities()?.tools).to.deep.equal({ listChanged: true });
    expect((await asCompany([storeMain], 'legacy')).getServerCapabilities()?.tools).to.deep.equal({});
    for (const protocolVersion of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const response = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': storeMain },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
      });
      const text = await response.text();
      const body = JSON.parse(text.startsWith('event:') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice(6) : text);
      expect(body.result.capabilities.tools, protocolVersion).to.deep.equal({});
    }
    // And no stream to hear one on.
    expect((await fetch(`${gw.url}/mcp`, { headers: { accept: 'text/event-stream', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': storeMain } })).status).to.equal(405);
  });

  it('params of the wrong shape are invalid params (-32602) naming the param, not an internal error dumping a validator', async () => {
    const answer = async (body: object) => {
      const response = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': storeMain },
        body: JSON.stringify(body),
      });
      // Refused before the SDK: JSON; answered by it: one server-sent event.
      const text = await response.text();
      return { status: response.status, body: JSON.parse(text.startsWith('event:') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice(6) : text) as any };
    };
    expect(await answer({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 1 } })).to.deep.equal({
      status: 400,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'params.cursor: must be a string, the nextCursor a tools/list answer gave (leave it out for the first page)' } },
    });
    expect((await answer({ jsonrpc: '2.0', id: 2, method: 'initialize' })).body.error).to.deep.equal({ code: -32602, message: 'params of initialize: protocolVersion, capabilities, clientInfo are required' });
    expect((await answer({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: [1] })).body.error).to.deep.equal({ code: -32602, message: 'params of tools/list: must be an object (or left out)' });
    // A cursor is what a page gave (only ever a multiple of the page size): another number is refused, not a page from it.
    for (const cursor of ['1', '0', '999']) {
      expect((await answer({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor } })).body.error, cursor).to.deep.equal({ code: -32602, message: `cursor "${cursor}" is not one tools/list gave` });
    }
  });

  it('one message a POST: a batch is refused (-32600), nothing of it run; tools/call params of the wrong shape name the param', async () => {
    const post = async (body: unknown) => {
      const response = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': storeMain },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const calls = Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'store_list-orders', arguments: {} } }));
    expect(await post(calls)).to.deep.equal({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'a JSON-RPC batch (an array of messages) is not accepted: send one message per POST, as MCP 2025-06-18 and later do' } },
    });
    expect(upstream.received).to.have.length(0);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store_list-orders', arguments: [1, 2] } })).body.error).to.deep.equal({
      code: -32602,
      message: "params.arguments: must be an object of the tool's arguments (or left out)",
    });
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } })).body.error).to.deep.equal({ code: -32602, message: 'params.name: must be a string, the name of a tool tools/list gave' });
  });

  it('caps an error result at MCP_RESULT_MAX_CHARS: an app error quoting a long text, and arguments with hundreds of problems', async () => {
    upstream.on('GET /api/orders/o5', () => ({ status: 404, body: { code: 'order_missing', message: 'x'.repeat(5000) } }));
    const client = await asCompany([storeMain]);
    const failed: any = await client.callTool({ name: 'store_get-order', arguments: { orderId: 'o5' } });
    expect(failed.isError).to.equal(true);
    expect(text(failed).length).to.be.at.most(1000);
    expect(text(failed)).to.match(/^The app answered with an error: order_missing: x+\.\.\. \[cut: \d+ characters in all\]/);
    const unknown = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`extra${i}`, i]));
    const refused: any = await client.callTool({ name: 'store_list-orders', arguments: unknown });
    expect(refused.isError).to.equal(true);
    expect(text(refused).length).to.be.at.most(1000);
    // The list is cut; the count of those past the first 100 stays, on the last line.
    expect(text(refused)).to.match(/\[cut: \d+ characters in all\]\n- and 200 more problems \(the first 100 are listed\)$/);
    expect(refused.structuredContent.error.problems).to.have.length(100);
    expect(refused.structuredContent.error.message.length).to.be.at.most(1000);
  });

  it('a call the client cancels stops the run and is no gateway error in the log', async () => {
    upstream.on('GET /api/orders/o8', () => ({ body: { id: 'o8' }, delayMs: 1500 }));
    const abort = new AbortController();
    const sent = fetch(`${gw.url}/mcp`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': storeMain },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'store_get-order', arguments: { orderId: 'o8' } } }),
    }).then((r) => r.text()).catch(() => 'aborted');
    await eventually(async () => upstream.calls('GET /api/orders/o8').length, (n) => n === 1, 'the app was called');
    const before = gw.logs().length;
    abort.abort();
    expect(await sent).to.equal('aborted');
    await eventually(async () => gw.logs().slice(before), (logs) => /"path":"\/mcp"/.test(logs), 'the request line');
    expect(gw.logs().slice(before)).to.not.include('mcp: tools/call failed');
  });

  it('two connections of one app: each tool takes a required connectionId whose enum names them, and runs as the one named', async () => {
    upstream.on('GET /api/orders/o7', () => ({ body: { id: 'o7' } }));
    const client = await asCompany([storeMain, storeBackup, desk]);
    const tools = await listTools(client);
    expect(tools.map((t) => t.name)).to.include('desk_list-tickets').and.include('store_get-order');
    const get = tools.find((t) => t.name === 'store_get-order')!;
    const ids = [storeMain, storeBackup].sort();
    expect((get.inputSchema as any).required).to.deep.equal(['connectionId', 'orderId']);
    expect((get.inputSchema as any).properties.connectionId.enum).to.deep.equal(ids);
    expect((get.inputSchema as any).properties.connectionId.description).to.include('"Main store"').and.include('"Backup store"');
    const result: any = await client.callTool({ name: 'store_get-order', arguments: { connectionId: storeBackup, orderId: 'o7' } });
    expect(result.isError, text(result)).to.equal(false);
    expect(upstream.calls('GET /api/orders/o7')[0]!.headers['x-api-key']).to.equal('backup-key');
    const missing: any = await client.callTool({ name: 'store_get-order', arguments: { orderId: 'o7' } });
    expect(missing.isError).to.equal(true);
    expect(text(missing)).to.include('- connectionId: is required');
    const wrong: any = await client.callTool({ name: 'store_get-order', arguments: { connectionId: desk, orderId: 'o7' } });
    expect(text(wrong)).to.include(`- connectionId: must be one of ${ids.join(', ')}`);
  });

  it("two connections of one app, and an action with a connectionId argument of its own: the tool's connection argument is _connectionId, the schema valid, the action callable", async () => {
    upstream.on('POST /api/links', () => ({ status: 201, body: { linked: true } }));
    const client = await asCompany([storeMain, storeBackup]);
    const link = (await listTools(client)).find((t) => t.name === 'store_link-account')!;
    const schema = link.inputSchema as any;
    expect(schema.required).to.deep.equal(['_connectionId', 'connectionId']);
    expect(schema.properties._connectionId.enum).to.deep.equal([storeMain, storeBackup].sort());
    expect(schema.properties.connectionId).to.include({ type: 'string' });
    expect(link.description).to.include('name it in _connectionId');
    const result: any = await client.callTool({ name: 'store_link-account', arguments: { _connectionId: storeBackup, connectionId: 'acct_9' } });
    expect(result.isError, text(result)).to.equal(false);
    const sent = upstream.calls('POST /api/links')[0]!;
    expect(sent.headers['x-api-key']).to.equal('backup-key');
    expect(JSON.parse(sent.body)).to.deep.equal({ connectionId: 'acct_9' });
    const missing: any = await client.callTool({ name: 'store_link-account', arguments: { connectionId: 'acct_9' } });
    expect(text(missing)).to.include('- _connectionId: is required');
  });

  it('401 with a WWW-Authenticate challenge for a missing or wrong bearer token, the protected resource metadata where it points', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
      });
    const missing = await post({});
    expect(missing.status).to.equal(401);
    const base = gw.gateway.services.config.publicBaseUrl;
    expect(missing.headers.get('www-authenticate')).to.equal(`Bearer realm="mcp", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    expect(await missing.json()).to.deep.include({ jsonrpc: '2.0', id: 7 });
    const wrong = await post({ Authorization: 'Bearer igw_not-a-key-at-all-000000000000' });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('www-authenticate')).to.include('error="invalid_token"');
    const metadata = await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).to.equal(200);
    expect(await metadata.json()).to.deep.equal({ resource: `${base}/mcp`, resource_name: 'Integration gateway MCP endpoint', bearer_methods_supported: ['header'] });
  });

  it('is served as every route is: a request id on the answer, the 1 MiB body limit, 405 with Allow for another method', async () => {
    const big = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': storeMain, 'x-request-id': 'mcp-spec-1' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(1024 * 1024) } }),
    });
    expect(big.status).to.equal(413);
    expect(big.headers.get('x-request-id')).to.equal('mcp-spec-1');
    expect(((await big.json()) as any).error.code).to.equal('PAYLOAD_TOO_LARGE');
    const get = await fetch(`${gw.url}/mcp`, { headers: { Authorization: `Bearer ${gw.apiKey}` } });
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
  });

  it("refuses another company's connection as unknown, a missing Connection-Id, and an Origin the company does not allow", async () => {
    const other = await otherTenant(gw.gateway.services.store);
    const theirs = (await call({ url: gw.url, apiKey: other.apiKey }, 'POST', '/v2/connections', { body: { appSlug: 'store', credentials: { apiKey: 'their-key' } } })).body.data.id;
    const refused = async (headers: Record<string, string>) => {
      const response = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const auth = { Authorization: `Bearer ${gw.apiKey}` };
    expect(await refused({ ...auth, 'Connection-Id': `${storeMain},${theirs}` })).to.deep.equal({ status: 400, body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: `connection ${theirs} does not exist` } } });
    expect((await refused(auth)).body.error.message).to.match(/^send a Connection-Id header/);
    const browser = await refused({ ...auth, 'Connection-Id': storeMain, Origin: 'https://evil.example' });
    expect(browser.status).to.equal(403);
    expect(browser.body.error.message).to.include('origin https://evil.example is not one of your company');
    // Their own key sees their connection and not ours.
    const theirClient = await connect({ Authorization: `Bearer ${other.apiKey}`, 'Connection-Id': theirs });
    expect((await listTools(theirClient)).length).to.equal(9);
    expect((await refused({ Authorization: `Bearer ${other.apiKey}`, 'Connection-Id': storeMain })).body.error.message).to.equal(`connection ${storeMain} does not exist`);
  });

  it("an end-user token sees the tools of that end user's own connections to enabled apps, and runs as them", async () => {
    upstream.on('GET /desk/tickets', () => ({ body: { tickets: [{ id: 't1' }] } }));
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    const token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
    const session = { url: gw.url, apiKey: token };
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['desk'] } })).status).to.equal(200);
    const own = (await call(session, 'POST', '/v2/end-user/connections', { body: { appSlug: 'desk', credentials: { token: 'ada-desk' } } })).body.data.id;
    const client = await connect({ Authorization: `Bearer ${token}` });
    expect((await listTools(client)).map((t) => t.name)).to.deep.equal(['desk_list-tickets']);
    const result: any = await client.callTool({ name: 'desk_list-tickets', arguments: {} });
    expect(result.structuredContent.data).to.deep.equal([{ id: 't1' }]);
    expect(upstream.calls('GET /desk/tickets')[0]!.headers.authorization).to.equal('Bearer ada-desk');
    // The company's connections are not the end user's: naming one is refused as unknown.
    const named = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', Authorization: `Bearer ${token}`, 'Connection-Id': desk },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(named.status).to.equal(400);
    expect(((await named.json()) as any).error.message).to.equal(`connection ${desk} does not exist`);
    void own;
  });

  it("an end-user token sees its connections to enabled apps however many it has to apps that are not", async function () {
    this.timeout(60_000);
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'grace' } })).body.data.userId;
    const token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['desk'] } })).status).to.equal(200);
    // 50 older connections (as many as a request sees) to an app end users may not use, made by the company for the end user.
    let older = '';
    for (let i = 0; i < 50; i++) {
      const created = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'store', endUserId: userId, credentials: { apiKey: `grace-store-${i}` } } });
      expect(created.status).to.equal(201);
      older = created.body.data.id;
    }
    const session = { url: gw.url, apiKey: token };
    const own = (await call(session, 'POST', '/v2/end-user/connections', { body: { appSlug: 'desk', credentials: { token: 'grace-desk' } } })).body.data.id;
    expect((await listTools(await connect({ Authorization: `Bearer ${token}` }))).map((t) => t.name)).to.deep.equal(['desk_list-tickets']);
    expect((await listTools(await connect({ Authorization: `Bearer ${token}`, 'Connection-Id': own }))).map((t) => t.name)).to.deep.equal(['desk_list-tickets']);
    const named = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', Authorization: `Bearer ${token}`, 'Connection-Id': older },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(named.status).to.equal(400);
    expect(((await named.json()) as any).error.message).to.equal('app "store" is not enabled for end users: the company adds it to enabledApps with PUT /v2/embedding');
  });
});
