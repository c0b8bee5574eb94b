import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/client';
import { McpStore, resultText as text } from '../helpers.ts';

describe('/mcp: a text cut at MCP_RESULT_MAX_CHARS is cut between characters, never inside one (no lone surrogate)', function () {
  this.timeout(30_000);
  const world = new McpStore({ MCP_RESULT_MAX_CHARS: '1000' });
  const { upstream } = world;
  let client: Client;
  // Emoji are two UTF-16 code units each: with and without one unit before them, one of the two cuts falls inside a pair.
  const emoji = (prefix: string) => `${prefix}${'\u{1F600}'.repeat(3000)}`;

  before(async () => {
    await world.start();
    client = await world.client();
  });
  after(() => world.stop());
  beforeEach(() => upstream.reset());

  for (const prefix of ['', 'a']) {
    it(`the request tool's body, an action's first row and an app's error message (${prefix ? 'odd' : 'even'} cut)`, async () => {
      upstream.on('GET /api/emoji', () => ({ body: { s: emoji(prefix) } }));
      upstream.on('GET /api/orders/o1', () => ({ body: { id: 'o1', s: emoji(prefix) } }));
      upstream.on('GET /api/orders/o2', () => ({ status: 404, body: { code: 'missing', message: emoji(prefix) } }));
      const results: any[] = [
        await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/emoji' } }),
        await client.callTool({ name: 'store_get-order', arguments: { orderId: 'o1' } }),
        await client.callTool({ name: 'store_get-order', arguments: { orderId: 'o2' } }),
      ];
      for (const [i, result] of results.entries()) {
        const shown = text(result);
        expect(shown.length, `result ${i}`).to.be.within(900, 1000);
        expect(shown.isWellFormed(), `result ${i}: ${JSON.stringify(shown.slice(-200))}`).to.equal(true);
      }
    });
  }

  for (const prefix of ['', 'a']) {
    it(`a value quoted in an argument problem, "(got ...)" (${prefix ? 'odd' : 'even'} cut)`, async () => {
      const value = emoji(prefix).slice(0, 200 + prefix.length);
      const results: any[] = [
        await client.callTool({ name: 'store_list-orders', arguments: { status: value } }),
        await client.callTool({ name: 'store_get-order', arguments: { orderId: value } }),
        await client.callTool({ name: 'store_request', arguments: { method: value, path: '/x' } }),
      ];
      for (const [i, result] of results.entries()) {
        expect(result.isError, `result ${i}`).to.equal(true);
        expect(text(result), `result ${i}`).to.include('(got ');
        expect(text(result).isWellFormed(), `result ${i}: ${JSON.stringify(text(result).slice(0, 200))}`).to.equal(true);
        expect(JSON.stringify(result.structuredContent).includes('\\ud83d'), `result ${i}`).to.equal(false);
      }
      expect(upstream.received).to.have.length(0);
    });
  }
});
