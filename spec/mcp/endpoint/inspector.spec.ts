import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const run = promisify(execFile);
/** The MCP Inspector's launcher (@modelcontextprotocol/inspector, a pinned devDependency), as `npx mcp-inspector` runs it. */
const INSPECTOR = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

/** A real MCP client, the MCP Inspector in CLI mode, against a gateway on 127.0.0.1. */
describe('/mcp with the MCP Inspector (--cli)', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let headers: string[];
  const inspector = async (...args: string[]) => {
    const { stdout, stderr } = await run(process.execPath, [INSPECTOR, '--cli', `${gw.url}/mcp`, ...headers, ...args], {
      timeout: 90_000,
      // Its catalog of servers goes to a file of its own, never the user's home.
      env: { ...process.env, MCP_CATALOG_PATH: path.join(gw.dataDir, 'inspector-catalog.json') },
    });
    return { out: JSON.parse(stdout), stderr };
  };

  before(async () => {
    await upstream.start();
    upstream.on('GET /api/orders', () => ({ body: { orders: [{ id: 'o1', total: 12.5 }], next: 'page-2' } }));
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/mcp'), upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    const id = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'store', name: 'Main store', credentials: { apiKey: 'main-key' } } })).body.data.id;
    headers = ['--header', `Authorization: Bearer ${gw.apiKey}`, '--header', `Connection-Id: ${id}`];
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  it('lists the tools, and its portability check (--strict) finds no problem in their schemas', async () => {
    const { out, stderr } = await inspector('--method', 'tools/list', '--strict');
    expect(out.tools.map((t: { name: string }) => t.name)).to.include('store_list-orders').and.include('store_refund-order');
    // It reports each problem on stderr (a `type` array was one, before Lookup values became anyOf branches); none now.
    expect(stderr, stderr).not.to.match(/warning|error/i);
  });

  it('calls a tool and gets the rows as structuredContent and text', async () => {
    const { out } = await inspector('--method', 'tools/call', '--tool-name', 'store_list-orders', '--tool-arg', 'status=open');
    expect(out.isError).to.equal(false);
    expect(out.structuredContent).to.deep.equal({ data: [{ id: 'o1', total: 12.5 }], meta: { cursor: 'page-2' } });
    expect(JSON.parse(out.content[0].text)).to.deep.equal(out.structuredContent);
    expect(upstream.calls('GET /api/orders')[0]!.query.get('status')).to.equal('open');
  });
});
