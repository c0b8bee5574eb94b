import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: an MCP-Protocol-Version the server does not speak is told every revision it does, the current one first', function () {
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

  async function post(version: string, body: object): Promise<{ status: number; body: any }> {
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': version,
        Authorization: `Bearer ${gw.apiKey}`,
        'Connection-Id': connectionId,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text.startsWith('event:') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice(6) : text) };
  }

  it('names 2026-07-28 among the revisions, not only the 2025 ones the legacy transport knows', async () => {
    for (const version of ['2026-06-01', '1999-01-01']) {
      const { status, body } = await post(version, { jsonrpc: '2.0', id: 4, method: 'tools/list' });
      expect(status, version).to.equal(400);
      expect(body).to.deep.equal({
        jsonrpc: '2.0',
        id: 4,
        error: {
          code: -32000,
          message: `MCP-Protocol-Version ${version} is not supported: send 2026-07-28 (with the per-request _meta), or one of 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07 after initialize`,
        },
      });
    }
  });

  it('a revision it speaks is served as before', async () => {
    expect((await post('2025-06-18', { jsonrpc: '2.0', id: 5, method: 'tools/list' })).body.result.tools).to.be.an('array');
  });
});
