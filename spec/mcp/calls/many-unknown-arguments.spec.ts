import { expect } from 'chai';
import { setAsideArguments } from '../../../engine/mcp/endpoint/set-aside-arguments.ts';
import { McpStore } from '../helpers.ts';

/** `k0`, `k1`, ...: `count` keys no tool has, each 0. */
const unknownArguments = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 0]));

describe("/mcp: a tools/call whose arguments are a body's worth of keys the tool does not have (85,000, ~1 MiB)", function () {
  this.timeout(60_000);
  const world = new McpStore();
  before(() => world.start());
  after(() => world.stop());
  const COUNT = 85_000;
  const callWith = (name: string) => world.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: unknownArguments(COUNT) } });
  const lines = (result: any): string[] => result.content[0].text.split('\n');

  it('an action tool: a result with isError naming the first 100 with the rule, and counting the rest; nothing reaches the app (it held the event loop 1.1 to 1.6 s)', async () => {
    expect(JSON.stringify(unknownArguments(COUNT)).length).to.be.within(900_000, 1024 * 1024);
    const { status, body } = await callWith('store_list-orders');
    expect(status).to.equal(200);
    expect(body.id).to.equal(7);
    expect(body.result.isError).to.equal(true);
    const text = lines(body.result);
    expect(text[0]).to.equal('The arguments need fixing (nothing was sent to the app):');
    expect(text[1]).to.equal('- k0: is not an argument of action list-orders (its arguments: status, limit, cursor) (rule: unknown)');
    expect(text[100]).to.equal('- k99: is not an argument of action list-orders (its arguments: status, limit, cursor) (rule: unknown)');
    expect(text.slice(1, -1)).to.have.length(100);
    expect(text.at(-1)).to.equal(`- and ${COUNT - 100} more problems (the first 100 are listed)`);
    const { error } = body.result.structuredContent;
    expect(error.code).to.equal('VALIDATION_ERROR');
    expect(error.problems).to.have.length(100);
    expect(error.problems[0]).to.deep.equal({ field: 'k0', rule: 'unknown', message: 'is not an argument of action list-orders (its arguments: status, limit, cursor)' });
    expect(error.message).to.match(new RegExp(`; and ${COUNT - 100} more problems \\(the first 100 are listed\\)$`));
    expect(world.upstream.received).to.have.length(0);
  });

  it('the request tool: the same, after its own arguments are said', async () => {
    const { body } = await callWith('store_request');
    expect(body.result.isError).to.equal(true);
    const text = lines(body.result);
    expect(text[1]).to.equal('- k0: is not an argument of this tool (its arguments: method, path, query, headers, body) (rule: unknown)');
    expect(text.slice(1, -1)).to.have.length(100);
    // The method and the path (both missing) are among those counted.
    expect(text.at(-1)).to.equal(`- and ${COUNT + 2 - 100} more problems (the first 100 are listed)`);
    expect(body.result.structuredContent.error.problems).to.have.length(100);
    expect(world.upstream.received).to.have.length(0);
  });

  it('the SDK is handed the call with `{}` for its arguments (its schema copied every key, twice a call); the tool runs with them as sent', () => {
    const args = unknownArguments(3);
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store_list-orders', arguments: args, _meta: { progressToken: 1 } } };
    const { body, arguments: setAside } = setAsideArguments(message);
    expect(body).to.deep.equal({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store_list-orders', arguments: {}, _meta: { progressToken: 1 } } });
    expect(setAside).to.equal(args);
    expect(message.params.arguments).to.equal(args);
    for (const other of [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { arguments: args } }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }, undefined, [1]]) {
      expect(setAsideArguments(other)).to.deep.equal({ body: other, arguments: undefined });
      expect(setAsideArguments(other).body).to.equal(other);
    }
  });
});
