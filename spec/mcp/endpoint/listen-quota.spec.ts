import { expect } from 'chai';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { mcpClient } from '../helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: subscriptions/listen streams per company (MCP_MAX_SUBSCRIPTIONS_PER_COMPANY)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  const clients: Client[] = [];

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', MCP_MAX_SUBSCRIPTIONS_PER_COMPANY: '2' });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  async function clientOf(apiKey: string): Promise<Client> {
    const connectionId = (await call({ url: gw.url, apiKey }, 'POST', '/v2/connections', { body: { appSlug: 'store', credentials: { apiKey: 'k-0123456789' } } })).body.data.id;
    const client = await mcpClient(gw.url, { Authorization: `Bearer ${apiKey}`, 'Connection-Id': connectionId });
    clients.push(client);
    return client;
  }

  it("refuses a company's stream past its share, naming the setting, while another company still listens; a closed stream frees its place", async () => {
    const ours = await clientOf(gw.apiKey);
    const first = await ours.listen({ toolsListChanged: true });
    const second = await ours.listen({ toolsListChanged: true });
    const refused: any = await ours.listen({ toolsListChanged: true }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(Error);
    expect(refused.message).to.include('subscription limit reached for your company');
    expect(refused.message).to.include('MCP_MAX_SUBSCRIPTIONS_PER_COMPANY');

    const other = await otherTenant(gw.gateway.services.store);
    const theirs = await (await clientOf(other.apiKey)).listen({ toolsListChanged: true });
    expect(theirs.honoredFilter).to.deep.include({ toolsListChanged: true });

    await first.close();
    let again: Awaited<ReturnType<Client['listen']>> | null = null;
    // The place is given back when the gateway sees the stream end: the next listen may race it by a moment.
    for (let i = 0; i < 50 && !again; i++) again = await ours.listen({ toolsListChanged: true }).catch(() => new Promise<null>((resolve) => setTimeout(() => resolve(null), 50)));
    expect(again?.honoredFilter).to.deep.include({ toolsListChanged: true });
    await Promise.all([second.close(), again!.close(), theirs.close()]);
  });
});
