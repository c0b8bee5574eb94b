import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRemoteJWKSet, jwtVerify, decodeJwt } from 'jose';
import { open } from '../../../engine/platform/crypto/cipher.ts';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';
import { decodeCursor, encodeCursor } from '../../../engine/core/pagination/cursor-codec.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const FIXTURE = path.join(ROOT, 'spec/fixtures/nedb-data-dir');
const expected = JSON.parse(await fs.readFile(path.join(ROOT, 'spec/fixtures/nedb-data-dir.expect.json'), 'utf8')) as {
  apiKey: string;
  endUsers: string[];
  listedUs: string[];
  connections: { company: string; own: string };
  secrets: Record<string, string>;
  endUserToken: string;
  tokenFor: string;
  webhook: string;
};

/**
 * A DATA_DIR written by the release before the PGlite store (NeDB files:
 * spec/fixtures/nedb-data-dir, made with that release's gateway) is imported
 * on the first start: every record, credentials that still decrypt, the API
 * key, end-user tokens signed by the same key, lists that answer as before,
 * the old files kept where the log says.
 */
describe('the embedded store of an earlier release (NeDB files), imported on first start', function () {
  this.timeout(90_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  let gw: TestGateway | null = null;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await fs.cp(FIXTURE, dir, { recursive: true });
    gw = await startTestGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: expected.apiKey, DEFINITIONS_DIR: path.join(ROOT, 'spec/fixtures/connections') });
  });
  after(async () => {
    await gw?.stop({ keepData: true });
    await cleanup();
  });

  it('moves the NeDB files aside, keeps them, and says where in the log', async () => {
    const entries = await fs.readdir(dir);
    expect(entries).not.to.include('store');
    const kept = entries.find((e) => e.startsWith('store.nedb-migrated-'));
    expect(kept, entries.join(', ')).to.be.a('string');
    expect((await fs.readdir(path.join(dir, kept!))).filter((f) => f.endsWith('.db'))).to.have.length(12);
    expect(gw!.logs()).to.include('imported the embedded store of an earlier release');
    expect(gw!.logs()).to.include(path.join(dir, kept!));
  });

  it('answers with the same API key, the same end users, and the same lists', async () => {
    const users = await call({ url: gw!.url, apiKey: expected.apiKey }, 'GET', '/v2/end-users?sort=createdOn');
    expect(users.status).to.equal(200);
    expect(users.body.data.map((u: { id: string }) => u.id)).to.deep.equal(expected.endUsers);
    expect(users.body.data[0].metadata).to.deep.equal({ region: 'eu', 'odd.key': { $x: [1, [2]] } });
    const us = await call({ url: gw!.url, apiKey: expected.apiKey }, 'GET', '/v2/end-users?where=metadata.region==us&sort=-createdOn');
    expect(us.body.data.map((u: { id: string }) => u.id)).to.deep.equal(expected.listedUs);
    const webhook = await call({ url: gw!.url, apiKey: expected.apiKey }, 'GET', `/v2/webhooks/${expected.webhook}`);
    expect(webhook.status).to.equal(200);
  });

  it('opens the connections\' credentials with the encryption key in DATA_DIR', async () => {
    const { store, keyring } = gw!.gateway.services;
    for (const [id, secret] of Object.entries(expected.secrets)) {
      const connection = await store.connections.findOne({ id });
      expect(connection, id).not.to.equal(null);
      expect(open<{ arguments: { apiKey: string } }>(keyring, id, connection!.credentials).arguments.apiKey).to.equal(secret);
    }
    const listed = await call({ url: gw!.url, apiKey: expected.apiKey }, 'GET', '/v2/connections?sort=createdOn');
    expect(listed.body.data.map((c: { id: string }) => c.id)).to.deep.equal([expected.connections.company, expected.connections.own]);
  });

  it('keeps the signing key: a token issued before still verifies, and a new one is accepted', async () => {
    const jwks = createRemoteJWKSet(new URL(`${gw!.url}/.well-known/jwks.json`));
    const issuedAt = decodeJwt(expected.endUserToken).iat!;
    const { payload } = await jwtVerify(expected.endUserToken, jwks, { currentDate: new Date(issuedAt * 1000 + 1000) });
    expect(payload.sub).to.equal(expected.tokenFor);
    const fresh = await call({ url: gw!.url, apiKey: expected.apiKey }, 'GET', `/v1/users/${expected.tokenFor}/token`);
    expect(fresh.status).to.equal(200);
    const session = await call({ url: gw!.url, apiKey: fresh.body.token }, 'GET', '/v2/end-user/session');
    expect(session.status).to.equal(200);
  });

  it('keeps the key cursors are signed with: a cursor issued by the earlier release is still taken', async () => {
    const before = createKeyring([(await fs.readFile(path.join(FIXTURE, 'encryption.key'), 'utf8')).trim()]);
    const scope = { appId: 'acme', version: 1, actionId: 'list-contacts', connectionId: expected.connections.company };
    const cursor = encodeCursor(before, scope, { offset: 100 } as never);
    expect(decodeCursor(gw!.gateway.services.keyring, scope, cursor)).to.deep.equal({ position: { offset: 100 } });
  });

  it('imports once: a second start finds nothing to import and the same records', async () => {
    await gw!.stop({ keepData: true });
    gw = await startTestGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: expected.apiKey, DEFINITIONS_DIR: path.join(ROOT, 'spec/fixtures/connections') });
    expect(gw.logs()).not.to.include('imported the embedded store');
    const users = await call({ url: gw.url, apiKey: expected.apiKey }, 'GET', '/v2/end-users');
    expect(users.body.meta.pagination.totalCount).to.equal(3);
  });
});
