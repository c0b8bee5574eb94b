import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/client';
import { McpStore, resultText as text } from '../helpers.ts';

describe("/mcp: a result's text with a long next-page cursor stays within MCP_RESULT_MAX_CHARS", function () {
  this.timeout(30_000);
  const world = new McpStore({ MCP_RESULT_MAX_CHARS: '1000' });
  const { upstream } = world;
  let client: Client;
  const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

  before(async () => {
    await world.start();
    client = await world.client();
  });
  after(() => world.stop());
  beforeEach(() => upstream.reset());

  it('quotes a cursor once, in the last line, so the rows get the room it does not take', async () => {
    const cursor = `c${'x'.repeat(299)}`;
    const orders = Array.from({ length: 40 }, (_, i) => ({ id: `o${i}`, note: 'x'.repeat(30) }));
    upstream.on('GET /api/orders', () => ({ body: { orders, next: cursor } }));
    const result: any = await client.callTool({ name: 'store_list-orders', arguments: {} });
    const shown = text(result);
    expect(shown.length).to.be.at.most(1000);
    expect(occurrences(shown, cursor)).to.equal(1);
    const [json, note] = shown.split('\n[');
    const rows = JSON.parse(json!).data;
    expect(rows).to.deep.equal(orders.slice(0, rows.length));
    // 1000 characters less the note (about 500 with the cursor) hold 9 rows of 47.
    expect(rows.length).to.be.at.least(8);
    expect(note).to.include(`${rows.length} of 40 rows shown`).and.include(`cursor ${JSON.stringify(cursor)}`);
    expect(result.structuredContent.meta.cursor).to.equal(cursor);
  });

  it('a cursor longer than half the text is not quoted: the text keeps to the cap, shows the rows that fit and says where the cursor is', async () => {
    const cursor = 'c'.repeat(3000);
    upstream.on('GET /api/orders', () => ({ body: { orders: [{ id: 'o1' }, { id: 'o2' }], next: cursor } }));
    const result: any = await client.callTool({ name: 'store_list-orders', arguments: {} });
    const shown = text(result);
    expect(shown.length).to.be.at.most(1000);
    expect(shown).not.to.include('ccccc');
    const [json, note] = shown.split('\n[');
    expect(JSON.parse(json!).data).to.deep.equal([{ id: 'o1' }, { id: 'o2' }]);
    expect(note).to.include('2 of 2 rows shown').and.include('cursor is 3000 characters').and.include('structuredContent.meta.cursor');
    expect(result.structuredContent.meta.cursor).to.equal(cursor);
    expect(result.isError).to.equal(false);
  });

  it('a first row too long for the text shows its beginning, never an empty cut', async () => {
    upstream.on('GET /api/orders', () => ({ body: { orders: [{ id: 'o1', note: 'y'.repeat(5000) }], next: 'c'.repeat(3000) } }));
    const result: any = await client.callTool({ name: 'store_list-orders', arguments: {} });
    const shown = text(result);
    expect(shown.length).to.be.at.most(1000);
    expect(shown).to.match(/^\{"id":"o1","note":"y{100,}\.\.\. \(row 1 cut\)\n\[0 of 1 rows shown/);
  });
});
