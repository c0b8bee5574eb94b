import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SignJWT } from 'jose';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { keyRingFor } from '../../../engine/tenancy/end-user-tokens/key-ring.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

describe('/mcp: subscriptions/listen with an end-user token past its exp (still within the clock skew a request is allowed)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', MCP_MAX_SUBSCRIPTIONS_PER_COMPANY: '1' });
    await call(gw, 'PUT', '/v2/embedding', { body: { enabledApps: ['store'] } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  /** A token for a new end user whose exp is `seconds` from now (negative: past), signed as GET /v1/users/{userId}/token signs one. */
  async function endUserToken(seconds: number): Promise<string> {
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: randomUUID() } })).body.data.userId as string;
    const { store, keyring, config } = gw.gateway.services;
    const endUser = (await store.endUsers.findOne({ id: userId }))!;
    const { kid, key } = await keyRingFor(store, keyring).signingKey();
    const now = Math.floor(Date.now() / 1000);
    return await new SignJWT({ cid: endUser.companyId })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid })
      .setSubject(userId)
      .setIssuer(config.endUserTokens.issuer)
      .setAudience(config.endUserTokens.audience)
      .setIssuedAt(now - 60)
      .setExpirationTime(now + seconds)
      .setJti(randomUUID())
      .sign(key);
  }

  const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  const post = (token: string, method: string, params: object) =>
    fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, Authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: META } }),
    });

  it('is answered the expiry at once, with nothing acknowledged and no place taken, rather than opened and ended (a client listening again would loop until the skew is over)', async () => {
    const token = await endUserToken(-5);
    // A request is still served: the token is within the skew the gateway allows.
    expect((await post(token, 'tools/list', {})).status).to.equal(200);
    const listen = await post(token, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const text = await listen.text();
    expect(text).not.to.include('notifications/subscriptions/acknowledged');
    const body = JSON.parse(text.startsWith('event:') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice(6) : text);
    expect(body).to.deep.equal({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: 'your end-user token expired, so this subscriptions/listen stream ends: listen again with a new token from GET /v1/users/{userId}/token' },
    });
    // The company's one place is free: a token that has not expired listens.
    const fresh = await post(await endUserToken(600), 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const reader = fresh.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).to.include('notifications/subscriptions/acknowledged');
    await reader.cancel();
  });
});
