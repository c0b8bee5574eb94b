import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: a message holding more than 1,000 values besides a tool call\'s arguments is refused before the SDK checks them one by one', function () {
  this.timeout(60_000);
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
    expect(upstream.received).to.have.length(0);
  });

  it('a message of 1,000 values is still served', async () => {
    const { body } = await answer({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: Object.fromEntries(Array.from({ length: 990 }, (_, i) => [`k${i}`, 0])) } });
    expect(body.result.tools).to.be.an('array').that.is.not.empty;
  });
});
