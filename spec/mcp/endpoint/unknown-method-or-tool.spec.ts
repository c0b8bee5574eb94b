import { expect } from 'chai';
import { McpStore } from '../helpers.ts';

describe('/mcp: an unknown method or tool is named, briefly, with what is served', function () {
  this.timeout(30_000);
  const world = new McpStore();
  before(() => world.start());
  after(() => world.stop());
  const answer = (body: object) => world.post(body);

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
    const response = await fetch(`${world.gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'resources/list',
        Authorization: `Bearer ${world.gw.apiKey}`,
        'Connection-Id': world.connectionId,
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
