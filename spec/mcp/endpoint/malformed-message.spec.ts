import { expect } from 'chai';
import { McpStore } from '../helpers.ts';

describe('/mcp: a message of the wrong shape is told what to fix, naming the member, never an internal error dumping a validator', function () {
  this.timeout(30_000);
  const world = new McpStore();
  before(() => world.start());
  after(() => world.stop());
  const answer = (body: object) => world.post(body);

  it('initialize with params of the wrong types: invalid params (-32602) naming each one and what it must be', async () => {
    const client = { name: 'agent', version: '1.0.0' };
    const cases: [object, string][] = [
      [{ protocolVersion: 20250618, capabilities: {}, clientInfo: client }, 'params.protocolVersion: must be a string'],
      [{ protocolVersion: '2025-06-18', capabilities: null, clientInfo: client }, 'params.capabilities: must be an object'],
      [{ protocolVersion: '2025-06-18', capabilities: { sampling: 'yes' }, clientInfo: client }, 'params.capabilities.sampling: must be an object'],
      [{ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: 'agent' }, 'params.clientInfo: must be an object'],
      [{ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 7 } }, 'params.clientInfo.name: must be a string'],
    ];
    for (const [params, named] of cases) {
      const { status, body } = await answer({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
      expect(status, JSON.stringify(params)).to.equal(400);
      expect(body.id).to.equal(1);
      expect(body.error.code, JSON.stringify(params)).to.equal(-32602);
      expect(body.error.message, JSON.stringify(params)).to.include(named).and.match(/^params of initialize: /);
      expect(body.error.message).not.to.include('invalid_type').and.not.include('\n');
    }
    const both = await answer({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 7 } } });
    expect(both.body.error.message).to.equal('params of initialize: params.clientInfo.name: must be a string (got a number); params.clientInfo.version: is required (a string)');
  });

  it('tools/call with a task or _meta of the wrong shape: invalid params naming it, not the validator\'s issues as JSON', async () => {
    const { status, body } = await answer({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'store_list-orders', arguments: {}, task: { ttl: 'soon' } } });
    expect(status).to.equal(400);
    expect(body.error).to.deep.equal({ code: -32602, message: 'params of tools/call: params.task.ttl: must be a number (got a string)' });
    expect(world.upstream.received).to.have.length(0);
  });

  it('a body that is not a JSON-RPC 2.0 request: invalid request (-32600) naming the member and what it must be', async () => {
    const cases: [object, string, unknown][] = [
      [{ id: 1, method: 'tools/list' }, 'jsonrpc: must be "2.0"', 1],
      [{ jsonrpc: '1.0', id: 1, method: 'tools/list' }, 'jsonrpc: must be "2.0"', 1],
      [{ jsonrpc: '2.0', id: null, method: 'tools/list' }, 'id: must be a string or a number (leave it out for a notification)', null],
      [{ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' }, 'id: must be a string or a number (leave it out for a notification)', null],
      [{ jsonrpc: '2.0', id: 1, method: 5 }, 'method: must be a string (got a number)', 1],
      [{ jsonrpc: '2.0', id: 1 }, 'method: is required (a string)', 1],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } }, 'params._meta: must be an object (got a string)', 1],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store_list-orders', _meta: { progressToken: {} } } }, 'params._meta.progressToken: must be a string or a number', 1],
    ];
    for (const [message, named, id] of cases) {
      const { status, body } = await answer(message);
      expect(status, JSON.stringify(message)).to.equal(400);
      expect(body.jsonrpc).to.equal('2.0');
      expect(body.id, JSON.stringify(message)).to.equal(id);
      expect(body.error.code, JSON.stringify(message)).to.equal(-32600);
      expect(body.error.message, JSON.stringify(message)).to.equal(`not a JSON-RPC 2.0 request or notification: ${named}`);
    }
    expect(world.upstream.received).to.have.length(0);
  });

  it('an empty body is told it is empty and what to send, as a JSON-RPC parse error', async () => {
    const response = await fetch(`${world.gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', Authorization: `Bearer ${world.gw.apiKey}`, 'Connection-Id': world.connectionId },
    });
    expect(response.status).to.equal(400);
    expect(await response.json()).to.deep.equal({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'the request body is empty: send one JSON-RPC message, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}' },
    });
  });

  it('what the SDK serves is untouched: a valid initialize, tools/list, a notification, a client response', async () => {
    const init = await answer({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'agent', version: '1' } } });
    expect(init.body.result.protocolVersion).to.equal('2025-06-18');
    expect((await answer({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { _meta: { progressToken: 'p' } } })).body.result.tools).to.be.an('array');
    for (const message of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 9, result: {} }]) {
      const response = await fetch(`${world.gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', Authorization: `Bearer ${world.gw.apiKey}`, 'Connection-Id': world.connectionId },
        body: JSON.stringify(message),
      });
      expect(response.status, JSON.stringify(message)).to.equal(202);
    }
  });
});
