import { expect } from 'chai';
import path from 'node:path';
import { MockAgent } from 'undici';
import type { Collection, Store } from '../../../engine/platform/store/index.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const RETURN_URL = 'https://app.customer.test/connected';
const PROVIDER = 'https://login.oauthy.example';

/** One collection of the store with some of its methods replaced; everything else is the real store's. */
function withCollection<K extends keyof Store>(store: Store, name: K, replace: (real: Store[K]) => Partial<Store[K]>): Store {
  const real = store[name];
  const replaced = replace(real);
  const collection = new Proxy(real as object, {
    get: (target, key) => (key in replaced ? (replaced as any)[key] : Reflect.get(target, key, target)),
  });
  return new Proxy(store, { get: (target, key) => (key === name ? collection : Reflect.get(target, key, target)) });
}

describe('end users (/v2/end-users)', () => {
  let gw: TestGateway;
  let other: { companyId: string; apiKey: string };
  // Armed by a test: the next connections.deleteMany fails once, as a store failing mid-way through a delete would.
  let failNextConnectionSweep = false;
  // Armed by a test: runs before the next connections.insert (an end user deleted while an OAuth callback exchanges its code).
  let beforeNextConnectionInsert: (() => Promise<void>) | null = null;
  // Armed by a test: runs before the next installations.insert (an end user deleted while their installation is being created).
  let beforeNextInstallationInsert: (() => Promise<void>) | null = null;
  const withInstallationHook = (store: Store) =>
    withCollection(store, 'installations', (real: Collection<any>) => ({
      insert: async (record) => {
        const before = beforeNextInstallationInsert;
        beforeNextInstallationInsert = null;
        if (before) await before();
        return await real.insert(record);
      },
    }));
  // The OAuth provider of the oauthy test app: undici's MockAgent answers the gateway's outbound client.
  const provider = new MockAgent();
  provider.disableNetConnect();

  before(async () => {
    gw = await startTestGateway(
      { DEFINITIONS_DIR, PUBLIC_BASE_URL: 'https://gateway.example.test' },
      {
        dispatcher: provider,
        store: (store) =>
          withCollection(withInstallationHook(store), 'connections', (real: Collection<any>) => ({
            deleteMany: async (filter) => {
              if (failNextConnectionSweep) {
                failNextConnectionSweep = false;
                throw new Error('store unavailable (injected by the spec)');
              }
              return await real.deleteMany(filter);
            },
            insert: async (record) => {
              const before = beforeNextConnectionInsert;
              beforeNextConnectionInsert = null;
              if (before) await before();
              return await real.insert(record);
            },
          })),
      },
    );
    other = await otherTenant(gw.gateway.services.store);
    const configured = await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123', clientSecret: 'client-secret-xyz' } });
    expect(configured.status).to.equal(200);
    // End users authorize an app the company enabled for them, returning to one of its allowed origins.
    const embedding = await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [new URL(RETURN_URL).origin], enabledApps: ['oauthy', 'acme-crm'] } });
    expect(embedding.status, JSON.stringify(embedding.body)).to.equal(200);
  });
  after(async () => {
    await gw.stop();
    await provider.close();
  });

  /** Starts an OAuth authorization for the end user, as their browser would with their token: the state the provider will send back. */
  async function authorizeOAuth(token: string): Promise<string> {
    const started = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`, { auth: token });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    return new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
  }

  async function callback(query: Record<string, string>): Promise<{ status: number; location: string | null; body: any }> {
    const response = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams(query)}`, { redirect: 'manual' });
    const text = await response.text();
    return { status: response.status, location: response.headers.get('location'), body: text.startsWith('{') ? JSON.parse(text) : text };
  }

  function providerIssuesTokens(): void {
    provider
      .get(PROVIDER)
      .intercept({ path: '/oauth/token', method: 'POST' })
      .reply(200, { access_token: 'access-abc', refresh_token: 'refresh-def', expires_in: 3600, token_type: 'Bearer' }, { headers: { 'content-type': 'application/json' } });
  }

  async function newEndUser(body: Record<string, unknown> = {}): Promise<string> {
    const created = await documentedCall(gw, 'POST', '/v1/users', { body });
    expect(created.status).to.equal(200);
    return created.body.data.userId;
  }

  async function tokenOf(endUserId: string): Promise<string> {
    const issued = await documentedCall(gw, 'GET', `/v1/users/${endUserId}/token`);
    expect(issued.status).to.equal(200);
    return issued.body.token;
  }

  async function apiKeyConnection(endUserId: string): Promise<string> {
    const created = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', endUserId, credentials: { apiKey: 'secret-of-the-user' }, metadata: { region: 'eu' } } });
    expect(created.status).to.equal(201);
    return created.body.data.id;
  }

  describe('list', () => {
    let ids: string[];
    before(async () => {
      ids = [];
      for (const [i, name] of ['Ada', 'Grace', 'Linus'].entries()) {
        ids.push(await newEndUser({ externalId: `list-${name}`, name, email: `${name}@Example.test`, isTestUser: i === 1, metadata: { region: i === 2 ? 'us' : 'eu' } }));
      }
      // Another company's end user never shows.
      await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'POST', '/v1/users', { body: { externalId: 'list-Ada', name: 'Ada' } });
    });

    it("answers the company's end users with every field, oldest first", async () => {
      const page = await documentedCall(gw, 'GET', '/v2/end-users?where=externalId=like=list-*');
      expect(page.status).to.equal(200);
      expect(page.body.data.map((u: any) => u.id)).to.deep.equal(ids);
      const [ada] = page.body.data;
      expect(ada).to.deep.include({ id: ids[0], externalId: 'list-Ada', name: 'Ada', email: 'ada@example.test', isTestUser: false, metadata: { region: 'eu' } });
      expect(Object.keys(ada)).to.deep.equal(['id', 'externalId', 'name', 'email', 'isTestUser', 'metadata', 'createdOn', 'updatedOn']);
      expect(page.body.meta.pagination).to.deep.equal({ totalCount: 3, totalCountExact: true, hasNextPage: false, hasPreviousPage: false });
    });

    it('filters with RSQL, sorts, picks fields and pages like GET /v1/companies', async () => {
      const filtered = await documentedCall(gw, 'GET', '/v2/end-users?where=externalId=like=list-*;(metadata.region==eu,isTestUser==true)&sort=-name&fields=name,id');
      expect(filtered.body.data).to.deep.equal([
        { id: ids[1], name: 'Grace' },
        { id: ids[0], name: 'Ada' },
      ]);
      const second = await documentedCall(gw, 'GET', '/v2/end-users?where=externalId=like=list-*&sort=name&limit=1&offset=1&fields=name');
      expect(second.body.data).to.deep.equal([{ name: 'Grace' }]);
      expect(second.body.meta.pagination).to.deep.equal({ totalCount: 3, totalCountExact: true, hasNextPage: true, hasPreviousPage: true });
    });

    it('refuses a bad where, sort, fields or limit naming the parameter and rule', async () => {
      const FIELDS = 'id, externalId, name, email, isTestUser, metadata, createdOn, updatedOn';
      const cases: [string, { field: string; rule: string; message: string }][] = [
        ['sort=password', { field: 'sort', rule: 'enum', message: `unknown field "password"; fields: ${FIELDS}` }],
        ['sort=metadata', { field: 'sort', rule: 'enum', message: 'metadata is an object and cannot be sorted by' }],
        ['fields=id,externalKey', { field: 'fields', rule: 'enum', message: `unknown field "externalKey"; fields: ${FIELDS}` }],
        ['where=isTestUser==maybe', { field: 'where', rule: 'rsql', message: 'isTestUser must be true or false (got "maybe") at position 13' }],
        ['where=companyId==x', { field: 'where', rule: 'rsql', message: `unknown field "companyId" at position 1; filterable fields: ${FIELDS}` }],
        ['limit=0', { field: 'limit', rule: 'minimum', message: 'must be >= 1' }],
        ['page=2', { field: 'page', rule: 'additionalProperties', message: 'is not a known query parameter' }],
      ];
      for (const [query, expected] of cases) {
        const refused = await documentedCall(gw, 'GET', `/v2/end-users?${query}`);
        expect(refused.status, query).to.equal(400);
        expect(refused.body.error.code, query).to.equal('VALIDATION_ERROR');
        expect(refused.body.error.details.problems, query).to.deep.equal([expected]);
      }
    });

    it('requires the API key', async () => {
      const refused = await documentedCall(gw, 'GET', '/v2/end-users', { auth: null });
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal('UNAUTHORIZED');
    });
  });

  describe('get and update', () => {
    it('answers one end user, and 404 for an unknown id or another company\'s', async () => {
      const id = await newEndUser({ externalId: 'get-1', name: 'Ada', metadata: { plan: 'pro' } });
      const one = await documentedCall(gw, 'GET', `/v2/end-users/${id}`);
      expect(one.status).to.equal(200);
      expect(one.body.data).to.include({ id, externalId: 'get-1', name: 'Ada', email: null, isTestUser: false });
      const missing = await documentedCall(gw, 'GET', '/v2/end-users/eu_missing');
      expect(missing.status).to.equal(404);
      expect(missing.body.error).to.deep.equal({ code: 'NOT_FOUND', message: 'end user eu_missing does not exist' });
      const foreign = await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'GET', `/v2/end-users/${id}`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `end user ${id} does not exist` });
    });

    it('replaces the fields given, lower-cases the email, clears with null, and keeps the rest', async () => {
      const id = await newEndUser({ externalId: 'patch-1', name: 'Ada', email: 'ada@example.test', metadata: { plan: 'pro', seats: 3 } });
      const before = (await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).body.data;
      const patched = await documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: { email: 'Ada.Lovelace@Example.TEST', isTestUser: true, metadata: { plan: 'team' } } });
      expect(patched.status).to.equal(200);
      expect(patched.body.data).to.deep.include({ id, externalId: 'patch-1', name: 'Ada', email: 'ada.lovelace@example.test', isTestUser: true, metadata: { plan: 'team' } });
      expect(Date.parse(patched.body.data.updatedOn)).to.be.at.least(Date.parse(before.updatedOn));
      expect(patched.body.data.createdOn).to.equal(before.createdOn);
      const cleared = await documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: { name: null } });
      expect(cleared.body.data).to.include({ name: null, email: 'ada.lovelace@example.test' });
      expect((await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).body.data).to.deep.equal(cleared.body.data);
    });

    it('refuses what POST /v1/users refuses, naming each field and rule, and an empty or missing body', async () => {
      const id = await newEndUser({ externalId: 'patch-2' });
      const refused = await documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: { email: 'not-an-email', isTestUser: 'yes', externalId: 'other', name: 'x'.repeat(257) } });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal('VALIDATION_ERROR');
      expect(refused.body.error.details.problems).to.deep.equal([
        { field: 'externalId', rule: 'additionalProperties', message: 'is not a known field' },
        { field: 'name', rule: 'maxLength', message: 'must NOT have more than 256 characters' },
        { field: 'email', rule: 'format', message: 'must be a valid email' },
        { field: 'isTestUser', rule: 'type', message: 'must be a boolean' },
      ]);
      const big = await documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: { metadata: { blob: 'x'.repeat(20_000) } } });
      expect(big.status).to.equal(400);
      expect(big.body.error.details.problems[0]).to.include({ field: 'metadata', rule: 'maxBytes' });
      const empty = await documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: {} });
      expect(empty.status).to.equal(400);
      expect(empty.body.error.details.problems[0]).to.include({ field: 'body', rule: 'minProperties' });
      const none = await documentedCall(gw, 'PATCH', `/v2/end-users/${id}`);
      expect(none.status).to.equal(400);
      expect(none.body.error.details.problems[0]).to.include({ field: 'body', rule: 'required' });
      // Nothing changed.
      expect((await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).body.data).to.include({ name: null, email: null, isTestUser: false });
    });

    it("never updates another company's end user (404)", async () => {
      const id = await newEndUser({ externalId: 'patch-3', name: 'Ada' });
      const foreign = await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'PATCH', `/v2/end-users/${id}`, { body: { name: 'Mallory' } });
      expect(foreign.status).to.equal(404);
      expect((await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).body.data.name).to.equal('Ada');
    });

    it('leaves GET /v1/users the company members', async () => {
      await newEndUser({ externalId: 'not-a-member', name: 'End User' });
      const members = await documentedCall(gw, 'GET', '/v1/users');
      expect(members.body.data.map((m: any) => m.name)).not.to.include('End User');
    });
  });

  describe('delete', () => {
    it('deletes the end user with their installations and connections, and refuses their token at once', async () => {
      const id = await newEndUser({ externalId: 'delete-1', name: 'Ada' });
      const keep = await newEndUser({ externalId: 'delete-keep' });
      const token = await tokenOf(id);
      const connectionId = await apiKeyConnection(id);
      const kept = await apiKeyConnection(keep);
      const installation = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId: id, apps: [{ appSlug: 'acme-crm', connectionId }] } });
      expect(installation.status).to.equal(201);
      // The token works before.
      const before = await call(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`, { auth: token });
      expect(before.status).to.equal(200);

      const deleted = await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`);
      expect(deleted.status).to.equal(200);
      expect(deleted.body.data).to.deep.equal({ id, deleted: true, connectionsDeleted: 1, installationsDeleted: 1 });

      const refused = await call(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`, { auth: token });
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal('UNAUTHORIZED');
      expect((await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).status).to.equal(404);
      expect((await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`)).status).to.equal(404);
      expect((await documentedCall(gw, 'GET', `/v2/installations/${installation.body.data.id}`)).status).to.equal(404);
      expect((await documentedCall(gw, 'GET', `/v2/connections?where=endUserId==${id}`)).body.data).to.deep.equal([]);
      // Another end user's connection is untouched.
      expect((await documentedCall(gw, 'GET', `/v2/connections/${kept}`)).status).to.equal(200);
      // The one call site of the later webhook event logs the deletion: ids and counts, never the person.
      const line = gw.logs().split('\n').find((l) => l.includes('"end user deleted"') && l.includes(id));
      expect(line, gw.logs()).to.be.a('string');
      expect(JSON.parse(line!)).to.include({ event: 'end_user.deleted', endUserId: id, connectionsDeleted: 1, installationsDeleted: 1 });
      expect(line).not.to.include('Ada');

      // A second DELETE finds nothing left: 404.
      const again = await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`);
      expect(again.status).to.equal(404);
      expect(again.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `end user ${id} does not exist` });
      // Its externalId is free again: a new person, not the deleted one.
      const reborn = await newEndUser({ externalId: 'delete-1' });
      expect(reborn).not.to.equal(id);
    });

    it("never deletes another company's end user (404), nor touches their connections", async () => {
      const id = await newEndUser({ externalId: 'delete-2' });
      const connectionId = await apiKeyConnection(id);
      const foreign = await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'DELETE', `/v2/end-users/${id}`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error.code).to.equal('NOT_FOUND');
      expect((await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).status).to.equal(200);
      expect((await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`)).status).to.equal(200);
    });

    it('a delete interrupted by a store failure leaves everything as it was, and a retry deletes it all', async () => {
      const id = await newEndUser({ externalId: 'delete-3' });
      const token = await tokenOf(id);
      const connections = [await apiKeyConnection(id), await apiKeyConnection(id)];
      await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId: id, apps: [{ appSlug: 'acme-crm', connectionId: connections[0] }] } });

      failNextConnectionSweep = true;
      const failed = await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`);
      expect(failed.status).to.equal(500);
      expect(failed.body.error.code).to.equal('INTERNAL_ERROR');
      expect(JSON.stringify(failed.body)).not.to.include('injected');
      // One transaction: the failure rolled the whole delete back, so nothing is half-way: the end user, their
      // installation and connections are all still there, and their token still works.
      expect((await documentedCall(gw, 'GET', `/v2/end-users/${id}`)).status).to.equal(200);
      expect((await call(gw, 'GET', '/v2/end-user/session', { auth: token })).status).to.equal(200);
      expect((await documentedCall(gw, 'GET', `/v2/connections?where=endUserId==${id}&fields=id`)).body.data).to.have.length(2);

      const retried = await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`);
      expect(retried.status).to.equal(200);
      expect(retried.body.data).to.deep.equal({ id, deleted: true, connectionsDeleted: 2, installationsDeleted: 1 });
      expect((await call(gw, 'GET', '/v2/connect/oauthy/authorize', { auth: token })).status).to.equal(401);
      expect((await documentedCall(gw, 'GET', `/v2/connections?where=endUserId==${id}`)).body.data).to.deep.equal([]);
      expect((await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`)).status).to.equal(404);
    });

    it('an OAuth authorization started before the delete never completes into a connection', async () => {
      const id = await newEndUser({ externalId: 'delete-oauth-1' });
      const state = await authorizeOAuth(await tokenOf(id));
      expect((await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`)).status).to.equal(200);
      providerIssuesTokens();
      const back = await callback({ code: 'code-1', state });
      // The browser goes back to the page that started it, told the authorization can no longer complete.
      expect(back.status).to.equal(302);
      const returned = new URL(back.location!);
      expect(returned.searchParams.get('error')).to.equal('oauth_state_invalid');
      expect(returned.searchParams.has('connectionId')).to.equal(false);
      expect((await documentedCall(gw, 'GET', `/v2/connections?where=endUserId==${id}`)).body.data).to.deep.equal([]);
    });

    it('nor does one whose connection is being stored while the end user is deleted', async () => {
      const id = await newEndUser({ externalId: 'delete-oauth-2' });
      const token = await tokenOf(id);
      const state = await authorizeOAuth(token);
      providerIssuesTokens();
      // The end user's session started it: the callback keeps the tokens for that session to confirm, and the
      // confirmation stores the connection.
      const back = await callback({ code: 'code-2', state });
      expect(back.status).to.equal(302);
      const choiceId = new URL(back.location!).searchParams.get('choiceId')!;
      expect(choiceId).to.match(/^cho_/);
      // The delete is sent just as the confirmation stores the connection. The connection and its event are one
      // transaction, and so is the delete: the delete waits for that commit, then sweeps that connection with the
      // rest. Nothing is left half-way either way.
      let deleting: Promise<number> | null = null;
      beforeNextConnectionInsert = async () => {
        deleting = documentedCall(gw, 'DELETE', `/v2/end-users/${id}`).then((r) => r.status);
      };
      const made = await documentedCall(gw, 'POST', `/v2/connect/choices/${choiceId}`, { auth: token, body: { optionId: '1' } });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect(await deleting).to.equal(200);
      const connectionId = made.body.data.connectionId;
      expect(connectionId).to.match(/^con_/);
      expect((await documentedCall(gw, 'GET', `/v2/connections?where=endUserId==${id}`)).body.data).to.deep.equal([]);
      expect((await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`)).status).to.equal(404);
    });

    it('an installation being created while its end user is deleted does not outlive them', async () => {
      const id = await newEndUser({ externalId: 'delete-installing' });
      const connectionId = await apiKeyConnection(id);
      let deletedMeanwhile: unknown = null;
      beforeNextInstallationInsert = async () => {
        deletedMeanwhile = (await documentedCall(gw, 'DELETE', `/v2/end-users/${id}`)).body.data;
      };
      const created = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId: id, apps: [{ appSlug: 'acme-crm', connectionId }] } });
      expect(deletedMeanwhile).to.deep.equal({ id, deleted: true, connectionsDeleted: 1, installationsDeleted: 0 });
      expect(created.status).to.equal(404);
      expect(created.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `end user ${id} does not exist` });
      expect((await documentedCall(gw, 'GET', `/v2/installations?where=endUserId==${id}`)).body.data).to.deep.equal([]);
    });

    it('a connection deleted while an installation of it is being created: never an installation of a deleted connection', async () => {
      const id = await newEndUser({ externalId: 'delete-connection-installing' });
      const connectionId = await apiKeyConnection(id);
      let deleted: { status: number; body: any } | null = null;
      // The installation has checked its connection; the DELETE is sent now and given time to finish before the insert.
      beforeNextInstallationInsert = async () => {
        void documentedCall(gw, 'DELETE', `/v2/connections/${connectionId}`).then((answer) => (deleted = answer));
        await new Promise((resolve) => setTimeout(resolve, 300));
      };
      const created = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId: id, apps: [{ appSlug: 'acme-crm', connectionId }] } });
      while (deleted === null) await new Promise((resolve) => setTimeout(resolve, 20));
      const { status: deleteStatus } = deleted as { status: number };
      const installations = (await documentedCall(gw, 'GET', `/v2/installations?where=endUserId==${id}`)).body.data;
      const connection = await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`);
      if (created.status === 201) {
        // The installation won: the connection stays and its DELETE is refused naming it.
        expect(deleteStatus).to.equal(409);
        expect(connection.status).to.equal(200);
        expect(installations.map((i: any) => i.id)).to.deep.equal([created.body.data.id]);
      } else {
        // The DELETE won: no installation is left pointing at it.
        expect(created.status).to.equal(400);
        expect(created.body.error.message).to.include(`connection ${connectionId} does not exist`);
        expect(deleteStatus).to.equal(200);
        expect(connection.status).to.equal(404);
        expect(installations).to.deep.equal([]);
      }
    });
  });
});
