import { expect } from 'chai';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { echoKeyInHeaderNames } from '../../helpers/header-name-echo.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { mcpClient } from '../helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');
/** With capitals: the HTTP client reads header names lower-cased. */
const KEY = 'Upstream-Secret-ABCdef9876';

describe("/mcp: the <app>_request tool, when the app writes the connection's secret back in a header's NAME", function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let client: Client;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    const id = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'store', credentials: { apiKey: KEY } } })).body.data.id as string;
    client = await mcpClient(gw.url, { Authorization: `Bearer ${gw.apiKey}`, 'Connection-Id': id });
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  it('answers the headers as the proxy does: that header left out, in any letter case, the others kept', async () => {
    echoKeyInHeaderNames(upstream, 'GET /api/echo');
    const result: any = await client.callTool({ name: 'store_request', arguments: { method: 'GET', path: '/echo' } });
    expect(upstream.calls('GET /api/echo')[0]!.headers['x-api-key'], 'the app did get the key').to.equal(KEY);
    expect(result.isError).to.equal(true);
    expect(result.structuredContent.status).to.equal(401);
    expect(result.structuredContent.headers['x-plain']).to.equal('kept');
    expect(Object.keys(result.structuredContent.headers).filter((name) => name.startsWith('x-echo-') || name.startsWith('x-pct-'))).to.deep.equal([]);
    expect(JSON.stringify(result).toLowerCase()).not.to.include(KEY.toLowerCase());
  });
});
