import { expect } from 'chai';
import { McpStore } from '../helpers.ts';

describe('/mcp: a message holding more than 1,000 values besides a tool call\'s arguments is refused before the SDK checks them one by one', function () {
  this.timeout(60_000);
  const world = new McpStore();
  before(() => world.start());
  after(() => world.stop());
  const answer = (body: object) => world.post(body);
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i % 2 === 0 ? 0 : {}]));
  const REFUSED = { code: -32600, message: 'the message holds more than 1000 values besides params.arguments: no MCP request needs that many (a tool\'s arguments go in params.arguments)' };

  it('an initialize with 60,000 experimental capabilities, a tools/list with 60,000 _meta members, a ping with 60,000 params: -32600 at once', async () => {
    const client = { name: 'agent', version: '1' };
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { experimental: many(60_000) }, clientInfo: client } },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: many(60_000) } },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: many(60_000) },
    ];
    for (const message of messages) {
      const { status, body } = await answer(message);
      expect(status, message.method).to.equal(400);
      expect(body).to.deep.equal({ jsonrpc: '2.0', id: 1, error: REFUSED });
    }
  });

  it("a tool call's arguments are not counted: 5,000 of them are the run's to refuse, as a result naming them", async () => {
    const { body } = await answer({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'store_list-orders', arguments: many(5_000) } });
    expect(body.result.isError).to.equal(true);
    expect(body.result.content[0].text).to.match(/^The arguments need fixing \(nothing was sent to the app\):\n- k0: is not an argument of action list-orders/);
    expect(world.upstream.received).to.have.length(0);
  });

  it('a message of 1,000 values is still served', async () => {
    const { body } = await answer({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: Object.fromEntries(Array.from({ length: 990 }, (_, i) => [`k${i}`, 0])) } });
    expect(body.result.tools).to.be.an('array').that.is.not.empty;
  });
});
