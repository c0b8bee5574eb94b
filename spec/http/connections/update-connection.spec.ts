import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { storedFilesInclude } from '../../helpers/stored-files.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const OLD_KEY = 'shop-old-secret-key-1';
const NEW_KEY = 'shop-new-secret-key-2';

describe('PATCH /v2/connections/{id}: credentials and metadata replaced in place', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let other: { companyId: string; apiKey: string };
  const create = async (body: Record<string, unknown>) => (await documentedCall(gw, 'POST', '/v2/connections', { body })).body.data;
  const patch = (id: string, body: unknown, auth?: string) => documentedCall(gw, 'PATCH', `/v2/connections/${id}`, { body, ...(auth ? { auth } : {}) });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    other = await otherTenant(gw.gateway.services.store);
    await documentedCall(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-secret' } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('replaces the credentials: answered without them, sealed in the store, and the next run sends the new ones', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [] } } }));
    const created = await create({ appSlug: 'shop', name: 'Shop', credentials: { apiKey: OLD_KEY } });
    const runOrders = () => documentedCall(gw, 'POST', '/v2/universal/apps/shop/actions/list-orders/run', { body: { connectionId: created.id } });
    await runOrders();

    const { status, body } = await patch(created.id, { credentials: { apiKey: NEW_KEY }, name: 'Shop (rotated)' });
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.data).to.include({ id: created.id, name: 'Shop (rotated)', status: 'active', createdOn: created.createdOn });
    expect(body.data).not.to.have.property('credentials');
    expect(JSON.stringify(body)).not.to.include(NEW_KEY);

    await runOrders();
    expect(upstream.calls('GET /api/orders').map((r) => r.headers['x-api-key'])).to.deep.equal([OLD_KEY, NEW_KEY]);
    expect(await storedFilesInclude(gw.dataDir, NEW_KEY)).to.equal(false);
    expect(gw.logs()).not.to.include(NEW_KEY);
  });

  it('checks credentials and metadata as create does, every problem at once, and changes nothing', async () => {
    const created = await create({ appSlug: 'shop', credentials: { apiKey: OLD_KEY } });
    const bad = await patch(created.id, { credentials: { apiKey: 42, apiKye: 'typo' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    expect(bad.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.have.members(['credentials.apiKey dataType', 'credentials.apiKye unknown']);
    expect(JSON.stringify(bad.body)).not.to.include('typo');

    const missing = await patch(created.id, { credentials: {} });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details.problems).to.deep.equal([{ field: 'credentials.apiKey', rule: 'required', message: 'is required' }]);

    const empty = await patch(created.id, {});
    expect(empty.status).to.equal(400);
    expect(empty.body.error.code).to.equal('VALIDATION_ERROR');
    const unknown = await patch(created.id, { appSlug: 'crm' });
    expect(unknown.status).to.equal(400);
    const metadata = await patch(created.id, { metadata: { region: { nested: true } } });
    expect(metadata.status).to.equal(400);
    expect(metadata.body.error.code).to.equal('VALIDATION_ERROR');

    const after = await documentedCall(gw, 'GET', `/v2/connections/${created.id}`);
    expect(after.body.data.updatedOn).to.equal(created.updatedOn);
  });

  it('holds credentials and metadata to the sizes create holds them to (64 KiB, 16 KiB as JSON): 400 maxBytes, nothing changed', async () => {
    const created = await create({ appSlug: 'shop', credentials: { apiKey: OLD_KEY } });
    const big = await patch(created.id, { credentials: { apiKey: 'B'.repeat(500_000) } });
    expect(big.status).to.equal(400);
    expect(big.body.error.details.problems).to.deep.equal([{ field: 'credentials', rule: 'maxBytes', message: 'must be at most 65536 bytes as JSON' }]);
    const wide = await patch(created.id, { metadata: { notes: 'm'.repeat(100_000) } });
    expect(wide.status).to.equal(400);
    expect(wide.body.error.details.problems).to.deep.equal([{ field: 'metadata', rule: 'maxBytes', message: 'must be at most 16384 bytes as JSON' }]);
    expect((await documentedCall(gw, 'GET', `/v2/connections/${created.id}`)).body.data.metadata).to.deep.equal({});
  });

  it('answers every one of many PATCHes sent at once (names, new credentials): the last written stands, none is refused', async () => {
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [] } } }));
    const created = await create({ appSlug: 'shop', credentials: { apiKey: OLD_KEY } });
    const named = await Promise.all(Array.from({ length: 10 }, (_, i) => patch(created.id, { name: `name-${i}` })));
    expect(named.map((p) => p.status)).to.deep.equal(Array(10).fill(200));
    const keys = Array.from({ length: 10 }, (_, i) => `shop-key-at-once-${i}`);
    const keyed = await Promise.all(keys.map((apiKey) => patch(created.id, { credentials: { apiKey } })));
    expect(keyed.map((p) => p.status)).to.deep.equal(Array(10).fill(200));
    await documentedCall(gw, 'POST', '/v2/universal/apps/shop/actions/list-orders/run', { body: { connectionId: created.id } });
    expect(keys).to.include(upstream.calls('GET /api/orders').at(-1)!.headers['x-api-key']);
  });

  it("treats another company's connection as missing (404), and leaves it alone", async () => {
    const created = await create({ appSlug: 'shop', credentials: { apiKey: OLD_KEY } });
    const answer = await patch(created.id, { credentials: { apiKey: NEW_KEY } }, other.apiKey);
    expect(answer.status).to.equal(404);
    expect(answer.body.error.code).to.equal('NOT_FOUND');
    expect((await patch('con_000000000000000000000000', { name: 'x' })).status).to.equal(404);
    const mine = await documentedCall(gw, 'GET', `/v2/connections/${created.id}`);
    expect(mine.body.data.updatedOn).to.equal(created.updatedOn);
  });

  it('makes a connection that needs re-authorization active again with imported tokens', async () => {
    upstream.on('POST /oauth/token', () => ({ status: 400, body: { error: 'invalid_grant' } }));
    upstream.on('GET /crm/contacts', (req) => (req.headers.authorization === 'Bearer imported-2' ? { body: { contacts: [{ id: 'c9' }] } } : { status: 401, body: {} }));
    const created = await create({ appSlug: 'crm', credentials: { accessToken: 'stale', refreshToken: 'rt-gone' } });
    const runContacts = () => documentedCall(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId: created.id } });
    expect((await runContacts()).body.error.code).to.equal('AUTH_REFRESH_FAILED');
    expect((await documentedCall(gw, 'GET', `/v2/connections/${created.id}`)).body.data.status).to.equal('needs_reauthorization');

    const patched = await patch(created.id, { credentials: { accessToken: 'imported-2', refreshToken: 'rt-2', expiresAt: '2999-01-01T00:00:00Z' } });
    expect(patched.status).to.equal(200);
    expect(patched.body.data).to.include({ status: 'active', tokenExpiresAt: '2999-01-01T00:00:00.000Z' });
    expect(JSON.stringify(patched.body)).not.to.match(/imported-2|rt-2/);
    const again = await runContacts();
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal([{ id: 'c9' }]);
  });
});
