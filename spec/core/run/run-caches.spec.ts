import { expect } from 'chai';
import path from 'node:path';
import { runAdminCommand } from '../../../engine/admin/commands.ts';
import { API_KEY_REJECTED } from '../../../engine/http/guards/require-api-key.ts';
import type { Collection, Store } from '../../../engine/platform/store/index.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

/** An app whose every call carries the end user's metadata.tenant in a header: what a run reads of its end user. */
const TENANTED = {
  'tenanted/app.yaml': 'id: tenanted\nslug: tenanted\nname: Tenanted\npublished: 1\n',
  'tenanted/versions/1/api.yaml': "baseUrl: __UPSTREAM__/api\nheaders:\n  X-Tenant: '{{metadata.tenant}}'\nauths:\n  - key\n",
  'tenanted/versions/1/auths/key.yaml': "type: ApiKey\nid: key\nname: API key\nin: Header\nparameterName: X-Api-Key\nvalue: '{{apiKey}}'\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n",
  'tenanted/versions/1/actions/whoami.yaml': "id: whoami\nslug: whoami\nname: Who am I\noperation: get\nmethod: GET\npath: /whoami\nresponse: '{ \"success\": status = 200, \"data\": body }'\n",
};

/**
 * The store as a gateway of a fleet sees it: another instance writes the same
 * database, so no collection reports a writeCount (MongoDB's adapter has
 * none) and nothing may be served from this process's caches. Writes made
 * through `other` stand for the other instance's.
 */
function sharedStore(holder: { other?: Store }) {
  return (store: Store): Store => {
    holder.other = store;
    const shared = Object.create(store) as Store;
    for (const name of ['apiKeys', 'connections', 'endUsers', 'installations'] as const) {
      const collection = Object.create(store[name]) as Collection<{ id: string }>;
      Object.defineProperty(collection, 'writeCount', { get: () => undefined, set: () => undefined });
      Object.defineProperty(shared, name, { value: collection });
    }
    return shared;
  };
}

for (const kind of ['own store (embedded: caches emptied by any write)', 'shared store (a fleet on one MongoDB: nothing cached)'] as const) {
  describe(`run path caches, ${kind}`, function () {
    this.timeout(30_000);
    const upstream = new Upstream();
    const holder: { other?: Store } = {};
    let gw: TestGateway;
    let cleanupDefs: () => Promise<void>;
    /** Where the change is written from: this gateway's own API, or the other instance (straight to the shared store). */
    const fleet = kind.startsWith('shared');

    before(async () => {
      await upstream.start();
      const defs = await definitionsFor(FIXTURE, upstream.url, Object.fromEntries(Object.entries(TENANTED).map(([file, text]) => [file, text.replaceAll('__UPSTREAM__', upstream.url)])));
      cleanupDefs = defs.cleanup;
      gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' }, fleet ? { store: sharedStore(holder) } : {});
    });
    after(async () => {
      await gw.stop();
      await upstream.stop();
      await cleanupDefs();
    });
    afterEach(() => upstream.reset());

    const newKey = async () => {
      const [company] = await gw.gateway.services.store.companies.find({});
      const created = await runAdminCommand(gw.gateway.services, ['keys:create', '--company', company!.id, '--email', 'owner@example.com', '--json']);
      return JSON.parse(created.output) as { key: string; apiKeyId: string };
    };
    const connect = async (credentials: Record<string, unknown>, appSlug = 'shop', endUserId?: string) =>
      (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials, ...(endUserId ? { endUserId } : {}) } })).body.data.id as string;
    const runGet = (connectionId: string, apiKey = gw.apiKey) =>
      call({ url: gw.url, apiKey }, 'POST', '/v2/universal/apps/shop/actions/get-order/run', { body: { connectionId, arguments: { orderId: 'o1' } } });

    it('refuses a revoked API key on the very next run, though the key was just admitted (and cached)', async () => {
      upstream.on('GET /api/orders/o1', () => ({ body: { id: 'o1' } }));
      const connectionId = await connect({ apiKey: 'shop-key' });
      const { key, apiKeyId } = await newKey();
      for (let i = 0; i < 3; i++) expect((await runGet(connectionId, key)).status).to.equal(200);
      if (fleet) expect(await holder.other!.apiKeys.updateOne({ id: apiKeyId, revokedOn: null }, { $set: { revokedOn: new Date() } })).to.equal(true);
      else expect((await runAdminCommand(gw.gateway.services, ['keys:revoke', apiKeyId])).exitCode).to.equal(0);
      const refused = await runGet(connectionId, key);
      expect(refused.status).to.equal(401);
      expect(refused.body.error).to.deep.equal({ code: 'UNAUTHORIZED', message: API_KEY_REJECTED });
      expect(upstream.calls('GET /api/orders/o1')).to.have.length(3);
    });

    it("sends a connection's new credentials on the next run after they changed", async () => {
      upstream.on('GET /api/orders/o1', () => ({ body: { id: 'o1' } }));
      const connectionId = await connect({ apiKey: 'first-key' });
      for (let i = 0; i < 2; i++) expect((await runGet(connectionId)).status).to.equal(200);
      if (fleet) {
        // The other instance's PATCH: sealed with the same keyring, as every instance of a fleet shares ENCRYPTION_KEY.
        const { seal } = await import('../../../engine/platform/crypto/cipher.ts');
        const sealed = seal(gw.gateway.services.keyring, connectionId, { arguments: { apiKey: 'second-key' } });
        expect(await holder.other!.connections.updateOne({ id: connectionId }, { $set: { credentials: sealed }, $inc: { credentialsVersion: 1 } })).to.equal(true);
      } else {
        expect((await call(gw, 'PATCH', `/v2/connections/${connectionId}`, { body: { credentials: { apiKey: 'second-key' } } })).status).to.equal(200);
      }
      expect((await runGet(connectionId)).status).to.equal(200);
      expect(upstream.calls('GET /api/orders/o1').map((c) => c.headers['x-api-key'])).to.deep.equal(['first-key', 'first-key', 'second-key']);
    });

    it('answers 404 on the next run after the connection was deleted', async () => {
      upstream.on('GET /api/orders/o1', () => ({ body: { id: 'o1' } }));
      const connectionId = await connect({ apiKey: 'shop-key' });
      for (let i = 0; i < 2; i++) expect((await runGet(connectionId)).status).to.equal(200);
      if (fleet) expect(await holder.other!.connections.deleteOne({ id: connectionId })).to.equal(true);
      else expect((await call(gw, 'DELETE', `/v2/connections/${connectionId}`)).status).to.equal(200);
      const gone = await runGet(connectionId);
      expect(gone.status).to.equal(404);
      expect(gone.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${connectionId} does not exist` });
      expect(upstream.calls('GET /api/orders/o1')).to.have.length(2);
    });

    it("fills the end user's new metadata on the next run after it changed", async () => {
      upstream.on('GET /api/whoami', () => ({ body: { ok: true } }));
      const endUserId = (await call(gw, 'POST', '/v1/users', { body: { metadata: { tenant: 'north' } } })).body.data.userId as string;
      const connectionId = await connect({ apiKey: 'tenant-key' }, 'tenanted', endUserId);
      const whoami = () => call(gw, 'POST', '/v2/universal/apps/tenanted/actions/whoami/run', { body: { connectionId } });
      for (let i = 0; i < 2; i++) expect((await whoami()).status).to.equal(200);
      if (fleet) expect(await holder.other!.endUsers.updateOne({ id: endUserId }, { $set: { metadata: { tenant: 'south' } } })).to.equal(true);
      else expect((await call(gw, 'PATCH', `/v2/end-users/${endUserId}`, { body: { metadata: { tenant: 'south' } } })).status).to.equal(200);
      expect((await whoami()).status).to.equal(200);
      expect(upstream.calls('GET /api/whoami').map((c) => c.headers['x-tenant'])).to.deep.equal(['north', 'north', 'south']);
    });
  });
}

describe('run path caches, own store: what a run asks the store', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  const lookups: string[] = [];
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;

  /** Counts the lookups that reach the store, by collection; writeCount passes through, so the caches work as they do in production. */
  const counting = (store: Store): Store => {
    const counted = Object.create(store) as Store;
    for (const name of ['apiKeys', 'connections', 'endUsers'] as const) {
      const original = store[name] as Collection<{ id: string }>;
      const collection = new Proxy(original, {
        get(target, property) {
          if (property === 'findOne') {
            return (filter: never) => {
              lookups.push(name);
              return target.findOne(filter);
            };
          }
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      Object.defineProperty(counted, name, { value: collection });
    }
    return counted;
  };

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, Object.fromEntries(Object.entries(TENANTED).map(([file, text]) => [file, text.replaceAll('__UPSTREAM__', upstream.url)])));
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' }, { store: counting });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });

  it("asks the store at most once for the run's API key, connection and end user, however many runs follow", async () => {
    upstream.on('GET /api/whoami', () => ({ body: { ok: true } }));
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { metadata: { tenant: 'north' } } })).body.data.userId as string;
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'tenanted', credentials: { apiKey: 'k' }, endUserId } })).body.data.id as string;
    lookups.length = 0;
    for (let i = 0; i < 5; i++) {
      expect((await call(gw, 'POST', '/v2/universal/apps/tenanted/actions/whoami/run', { body: { connectionId } })).status).to.equal(200);
    }
    // The key was looked up (and kept) by the two requests before; each write to a collection empties its cache, so the first run reads the new connection and its end user once.
    expect(lookups.sort()).to.deep.equal(['connections', 'endUsers']);
  });
});
