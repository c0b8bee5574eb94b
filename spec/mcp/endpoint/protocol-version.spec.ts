import { expect } from 'chai';
import { McpStore } from '../helpers.ts';

describe('/mcp: an MCP-Protocol-Version the server does not speak is told every revision it does, the current one first', function () {
  this.timeout(30_000);
  const world = new McpStore();
  before(() => world.start());
  after(() => world.stop());
  const post = (version: string, body: object) => world.post(body, { 'mcp-protocol-version': version });

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
