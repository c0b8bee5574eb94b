import { expect } from 'chai';
import { admits } from '../../../engine/mcp/endpoint/accept.ts';
import { McpStore } from '../helpers.ts';

describe('/mcp: the Accept header is read as HTTP content negotiation reads it (RFC 9110): */* and type/* admit the types they cover', function () {
  this.timeout(30_000);
  const world = new McpStore();
  before(() => world.start());
  after(() => world.stop());
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } };
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  /** A POST with exactly this Accept header (none when null), as a client of the 2025 revisions sends it. */
  const post = async (accept: string | null, body: object) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', Authorization: `Bearer ${world.gw.apiKey}`, 'Connection-Id': world.connectionId };
    if (accept !== null) headers.accept = accept;
    const response = await fetch(`${world.gw.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };

  it('*/* (what curl and fetch send), application/*, text/* and the like are served as "application/json, text/event-stream" is (they were 406)', async () => {
    for (const accept of ['*/*', 'application/*, text/*', '*/*;q=0.8', 'application/json, text/*', 'application/*, text/event-stream', 'text/event-stream;q=0.5, application/json;q=0.9', null]) {
      const started = await post(accept, initialize);
      expect(started.status, String(accept)).to.equal(200);
      expect(started.type).to.equal('text/event-stream');
      expect(started.text).to.include('"protocolVersion":"2025-06-18"');
      const listed = await post(accept, list);
      expect(listed.status, String(accept)).to.equal(200);
      expect(listed.text).to.include('"name":"store_list-orders"');
      expect((await post(accept, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, String(accept)).to.equal(202);
    }
  });

  it('a header that does not admit both is 406 with a JSON-RPC error saying what to send and what it admits, with the request id', async () => {
    const cases: [string, string][] = [
      ['application/json', 'only application/json'],
      ['text/event-stream', 'only text/event-stream'],
      ['application/*', 'only application/json'],
      ['text/html', 'neither'],
      ['application/json;q=0, */*', 'only text/event-stream'],
      ['text/*;q=0, application/json, text/event-stream;q=0', 'only application/json'],
    ];
    for (const [accept, admitted] of cases) {
      const { status, type, text } = await post(accept, list);
      expect(status, accept).to.equal(406);
      expect(type).to.equal('application/json');
      expect(JSON.parse(text)).to.deep.equal({
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32000,
          message: `Not Acceptable: the Accept header must admit both application/json and text/event-stream (send "application/json, text/event-stream", or a range that covers them, such as */*); ${JSON.stringify(accept)} admits ${admitted}`,
        },
      });
    }
  });

  it('a weight written out of the grammar is read as the number it is: q=0.0000 and q=-1 refuse as q=0 does (they were read as 1: served), q=1.0000 admits', async () => {
    for (const accept of ['*/*;q=0.0000', '*/*;q=-1', 'application/json, text/event-stream;q=-0.5', 'application/json;q=0.00000, text/event-stream']) {
      const { status, text } = await post(accept, list);
      expect(status, accept).to.equal(406);
      expect(JSON.parse(text).error.message, accept).to.match(/^Not Acceptable: the Accept header must admit both application\/json and text\/event-stream .* admits (neither|only (application\/json|text\/event-stream))$/);
    }
    for (const accept of ['application/json;q=1.0000, text/event-stream;q=1.0000', '*/*;q=1e3', '*/*;q=NaN']) {
      expect((await post(accept, list)).status, accept).to.equal(200);
    }
    const table: [string, boolean][] = [
      ['0.0000', false],
      ['-1', false],
      ['-0', false],
      ['0e0', false],
      ['.0', false],
      ['0.', false],
      ['1.0000', true],
      ['0.0001', true],
      ['1e3', true],
      ['NaN', true],
      ['', true],
    ];
    for (const [weight, expected] of table) expect(admits(`*/*;q=${weight}`, 'application/json'), `q=${weight}`).to.equal(expected);
  });

  it('a weight of 60,000 digits and a header of 60,000 ranges with weights are read in one pass (no backtracking)', () => {
    for (const accept of [`*/*;q=${'1'.repeat(60_000)}x`, `*/*;q=0.${'0'.repeat(60_000)}`, Array.from({ length: 60_000 }, () => 'a/b;q=0.5').join(',')]) {
      const started = performance.now();
      admits(accept, 'application/json');
      expect(performance.now() - started, accept.slice(0, 20)).to.be.below(200);
    }
  });

  it('a request of the 2026-07-28 revision is served whatever its Accept says, as before', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    for (const accept of ['*/*', 'application/json']) {
      const { status, body } = await world.post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } }, { accept, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
      expect(status, accept).to.equal(200);
      expect(body.result.tools).to.be.an('array').that.is.not.empty;
    }
  });

  it('admits: the most specific range decides, q=0 refuses, parameters and quoted commas do not confuse it', () => {
    const table: [string | null, string, boolean][] = [
      [null, 'application/json', true],
      ['*/*', 'text/event-stream', true],
      ['application/*', 'application/json', true],
      ['application/*', 'text/event-stream', false],
      ['APPLICATION/JSON', 'application/json', true],
      ['application/json;q=0', 'application/json', false],
      ['application/json;q=0, */*', 'application/json', false],
      ['application/*;q=0, application/json;q=0.1', 'application/json', true],
      ['*/*;q=0', 'application/json', false],
      ['application/json; charset=utf-8', 'application/json', true],
      ['text/html;x="a, application/json", text/plain', 'application/json', false],
      ['application/json-seq', 'application/json', false],
      ['', 'application/json', false],
      ['application/json;q=2', 'application/json', true],
    ];
    for (const [accept, type, expected] of table) expect(admits(accept, type), `${accept} ${type}`).to.equal(expected);
  });
});
