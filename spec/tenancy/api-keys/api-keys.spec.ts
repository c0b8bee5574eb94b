import { expect } from 'chai';
import { sendAdminCommand } from '../../../engine/admin/admin-socket.ts';
import { runAdminCommand } from '../../../engine/admin/commands.ts';
import { API_KEY_REJECTED } from '../../../engine/http/guards/require-api-key.ts';
import { call, startTestGateway, TEST_API_KEY, type TestGateway } from '../../helpers/gateway.ts';
import { storedFilesInclude } from '../../helpers/stored-files.ts';

describe('API key authentication', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.stop();
  });

  it('admits the bootstrap key', async () => {
    const { status, body } = await call(gw, 'GET', '/v1/users');
    expect(status).to.equal(200);
    expect(body).to.deep.equal({ success: true, data: [{ userId: body.data[0].userId, name: 'Owner', email: 'owner@example.com' }] });
  });

  const rejected: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a non-Bearer scheme', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a malformed key', { Authorization: 'Bearer not a key' }],
    ['a too short key', { Authorization: 'Bearer abc' }],
    ['an unknown key', { Authorization: 'Bearer igw_thisKeyWasNeverIssuedToAnybodyAtAll000' }],
  ];
  for (const [name, headers] of rejected) {
    it(`answers 401 UNAUTHORIZED with the same message for ${name}`, async () => {
      const { status, body, headers: h } = await call(gw, 'GET', '/v1/users', { auth: null, headers });
      expect(status).to.equal(401);
      expect(body).to.deep.equal({ success: false, error: { code: 'UNAUTHORIZED', message: API_KEY_REJECTED } });
      expect(h.get('www-authenticate')).to.equal('Bearer');
    });
  }

  it('refuses a revoked key with the same 401', async () => {
    const store = gw.gateway.services.store;
    const [company] = await store.companies.find({});
    const created = await runAdminCommand(gw.gateway.services, ['keys:create', '--company', company!.id, '--email', 'owner@example.com', '--json']);
    const { key, apiKeyId } = JSON.parse(created.output);
    expect((await call({ url: gw.url, apiKey: key }, 'GET', '/v1/users')).status).to.equal(200);
    expect((await runAdminCommand(gw.gateway.services, ['keys:revoke', apiKeyId])).exitCode).to.equal(0);
    const { status, body } = await call({ url: gw.url, apiKey: key }, 'GET', '/v1/users');
    expect(status).to.equal(401);
    expect(body.error).to.deep.equal({ code: 'UNAUTHORIZED', message: API_KEY_REJECTED });
  });

  it('refuses a key revoked over the admin socket on the very next request, though it was just admitted', async () => {
    const [company] = await gw.gateway.services.store.companies.find({});
    const created = await sendAdminCommand(gw.dataDir, ['keys:create', '--company', company!.id, '--email', 'owner@example.com', '--json']);
    const { key, apiKeyId } = JSON.parse(created.output);
    for (let i = 0; i < 2; i++) expect((await call({ url: gw.url, apiKey: key }, 'GET', '/v1/users')).status).to.equal(200);
    expect((await sendAdminCommand(gw.dataDir, ['keys:revoke', apiKeyId])).exitCode).to.equal(0);
    const { status, body } = await call({ url: gw.url, apiKey: key }, 'GET', '/v1/users');
    expect(status).to.equal(401);
    expect(body.error).to.deep.equal({ code: 'UNAUTHORIZED', message: API_KEY_REJECTED });
  });

  it('stores keys only as hashes and never logs them', async () => {
    expect(await storedFilesInclude(gw.dataDir, TEST_API_KEY.slice(0, 8)), 'the key prefix is stored').to.equal(true);
    expect(await storedFilesInclude(gw.dataDir, TEST_API_KEY)).to.equal(false);
    expect(gw.logs()).to.include('"path":"/v1/users"');
    expect(gw.logs()).not.to.include(TEST_API_KEY);
  });
});
