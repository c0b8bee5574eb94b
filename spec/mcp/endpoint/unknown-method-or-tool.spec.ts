import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: an unknown method or tool is named, briefly, with what is served', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let connectionId: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'store', name: 'Main store', credentials: { apiKey: 'main-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  async function answer(body: object): Promise<{ status: number; body: any }> {
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': connectionId },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text.startsWith('event:') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice(6) : text) };
  }

  it('a method the server does not serve (resources, prompts, one of its own) is -32601 naming it and the methods it serves', async () => {
    for (const method of ['resources/list', 'prompts/get', 'tools/run']) {
      const { body } = await answer({ jsonrpc: '2.0', id: 1, method, params: {} });
      expect(body.error, method).to.deep.equal({
        code: -32601,
        message: `method "${method}" is not served: this server serves tools (tools/list, tools/call), besides initialize and ping; not resources, prompts, completions or logging`,
      });
    }
  });

  it('the same for a 2026-07-28 request', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'resources/list',
        Authorization: `Bearer ${gw.apiKey}`,
        'Connection-Id': connectionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list', params: { _meta: meta } }),
    });
    expect(((await response.json()) as any).error).to.deep.equal({
      code: -32601,
      message: 'method "resources/list" is not served: this server serves tools (tools/list, tools/call), besides server/discover and subscriptions/listen; not resources, prompts, completions or logging',
    });
  });

  it('an unknown tool name of any length is quoted at most 100 characters', async () => {
    const name = `store_${'x'.repeat(200_000)}`;
    const { body } = await answer({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } });
    expect(body.error.code).to.equal(-32602);
    expect(body.error.message).to.equal(`unknown tool "${name.slice(0, 100)}..." (200006 characters): tools/list names the tools of the connections in scope`);
  });
});
