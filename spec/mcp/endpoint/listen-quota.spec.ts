import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { Client } from '@modelcontextprotocol/client';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { keyRingFor } from '../../../engine/tenancy/end-user-tokens/key-ring.ts';
import { mcpClient } from '../helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: subscriptions/listen streams per company (MCP_MAX_SUBSCRIPTIONS_PER_COMPANY)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let defsDir: string;
  const clients: Client[] = [];

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    defsDir = defs.dir;
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

  /** An end user of our company and a token for them that expires `seconds` from now (as GET /v1/users/{userId}/token signs one, with a shorter exp). */
  async function endUserToken(externalId: string, seconds: number): Promise<{ userId: string; token: string }> {
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId } })).body.data.userId as string;
    const { store, keyring, config } = gw.gateway.services;
    const endUser = (await store.endUsers.findOne({ id: userId }))!;
    const { kid, key } = await keyRingFor(store, keyring).signingKey();
    const token = await new SignJWT({ cid: endUser.companyId })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid })
      .setSubject(userId)
      .setIssuer(config.endUserTokens.issuer)
      .setAudience(config.endUserTokens.audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .setJti(randomUUID())
      .sign(key);
    return { userId, token };
  }

  async function listenAgain(client: Client) {
    let again: Awaited<ReturnType<Client['listen']>> | null = null;
    for (let i = 0; i < 50 && !again; i++) again = await client.listen({ toolsListChanged: true }).catch(() => new Promise<null>((resolve) => setTimeout(() => resolve(null), 50)));
    return again;
  }

  it("ends an end user's stream when its token expires, and gives its place back", async () => {
    const { token } = await endUserToken('short-lived', 3);
    const expiresAt = Date.now() + 3_000;
    const agent = await mcpClient(gw.url, { Authorization: `Bearer ${token}` });
    clients.push(agent);
    const streams = [await agent.listen({ toolsListChanged: true }), await agent.listen({ toolsListChanged: true })];
    // The company's two places are the end user's: its backend cannot listen.
    const backend = await clientOf(gw.apiKey);
    expect(await backend.listen({ toolsListChanged: true }).catch((error: Error) => error.message)).to.include('subscription limit reached for your company');

    const ended = await Promise.race([Promise.all(streams.map((s) => s.closed)).then(() => Date.now()), new Promise<null>((resolve) => setTimeout(() => resolve(null), 8_000))]);
    expect(ended, 'the streams ended').not.to.equal(null);
    expect(ended!).to.be.at.least(expiresAt - 1_000).and.at.most(expiresAt + 2_000);
    // Their places are free again.
    const again = await listenAgain(backend);
    expect(again?.honoredFilter).to.deep.include({ toolsListChanged: true });
    await again!.close();
  });

  it("ends a deleted end user's stream instead of telling it the tools changed, while a stream of the company's backend is told", async () => {
    const { userId, token } = await endUserToken('deleted-later', 600);
    const agent = await mcpClient(gw.url, { Authorization: `Bearer ${token}` });
    clients.push(agent);
    let agentTold = false;
    agent.setNotificationHandler('notifications/tools/list_changed', async () => {
      agentTold = true;
    });
    const agentStream = await agent.listen({ toolsListChanged: true });
    const backend = await clientOf(gw.apiKey);
    const backendTold = new Promise<void>((resolve) => backend.setNotificationHandler('notifications/tools/list_changed', async () => resolve()));
    const backendStream = await backend.listen({ toolsListChanged: true });

    expect((await call(gw, 'DELETE', `/v2/end-users/${userId}`)).status).to.equal(200);
    const file = path.join(defsDir, 'store/versions/1/actions/cancel-order.yaml');
    await fs.writeFile(file, 'id: cancel-order\nslug: cancel-order\nname: Cancel an order\noperation: other\nmethod: POST\npath: /orders/cancel\n');
    try {
      await gw.gateway.services.definitions.reload('spec');
      await backendTold;
      const agentEnded = await Promise.race([agentStream.closed.then(() => 'ended'), new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 5_000))]);
      expect(agentEnded, "the deleted end user's stream").to.equal('ended');
      expect(agentTold, 'the deleted end user heard of the change').to.equal(false);
      // Its place is free again: with the backend's stream, the company can hold one more.
      const again = await listenAgain(backend);
      expect(again?.honoredFilter).to.deep.include({ toolsListChanged: true });
      await Promise.all([again!.close(), backendStream.close()]);
    } finally {
      await fs.rm(file);
      await gw.gateway.services.definitions.reload('spec');
    }
  });
});
