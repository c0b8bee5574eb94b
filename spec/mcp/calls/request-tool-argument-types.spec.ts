import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/client';
import { McpStore, resultText as text } from '../helpers.ts';

describe('/mcp: the <app>_request tool names the rule an argument of the wrong type or form breaks', function () {
  this.timeout(30_000);
  const world = new McpStore();
  const { upstream } = world;
  let client: Client;

  before(async () => {
    await world.start();
    client = await world.client();
  });
  after(() => world.stop());

  it('a path that was given but is not a string is told it must be a string (rule: type), not that it is missing', async () => {
    for (const given of [5, true, ['/orders'], { p: '/orders' }]) {
      const result: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: given } });
      expect(result.isError, JSON.stringify(given)).to.equal(true);
      expect(text(result), JSON.stringify(given)).to.equal(
        `The arguments need fixing (nothing was sent to the app):\n- path: must be a string: the path under the app's base URL, e.g. /users/42 (got ${JSON.stringify(given)}) (rule: type)`,
      );
    }
    // Left out, blank or null (as an action's argument's null is): missing.
    for (const args of [{ method: 'GET' }, { method: 'GET', path: '' }, { method: 'GET', path: null }]) {
      const missing: any = await client.callTool({ name: 'store_request', arguments: args });
      expect(text(missing), JSON.stringify(args)).to.include("- path: is required: the path under the app's base URL, e.g. /users/42 (rule: required)");
    }
    expect(upstream.received).to.have.length(0);
  });

  it('a header name that is not an HTTP token is named, so the agent knows which one to fix', async () => {
    const result: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/orders', headers: { 'If-Match:': '"v1"', Accept: 'application/json' } } });
    expect(result.isError).to.equal(true);
    expect(text(result)).to.equal(
      'The arguments need fixing (nothing was sent to the app):\n- headers.If-Match:: is not a valid header name: an HTTP token of letters, digits and !#$%&\'*+.^_`|~- (rule: header-name)',
    );
    expect(upstream.received).to.have.length(0);
  });
});
