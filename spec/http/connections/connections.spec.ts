import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { storedFilesInclude } from '../../helpers/stored-files.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const SECRET = 'acme-secret-api-key-value-123';

describe('connections (/v2/connections)', () => {
  let gw: TestGateway;
  let other: { companyId: string; apiKey: string };
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    other = await otherTenant(gw.gateway.services.store);
  });
  after(async () => {
    await gw.stop();
  });

  const acme = (overrides: Record<string, unknown> = {}) => ({ appSlug: 'acme-crm', name: 'Main', credentials: { apiKey: SECRET }, metadata: { region: 'eu' }, ...overrides });

  it('creates a connection (201) and never answers its credentials', async () => {
    const { status, body } = await documentedCall(gw, 'POST', '/v2/connections', { body: acme() });
    expect(status).to.equal(201);
    expect(body.success).to.equal(true);
    expect(body.data).to.include({ appId: 'acme', appSlug: 'acme-crm', authId: 'api-key', authType: 'ApiKey', endUserId: null, name: 'Main', status: 'active' });
    expect(body.data.id).to.match(/^con_[0-9a-f]{24}$/);
    expect(body.data.metadata).to.deep.equal({ region: 'eu' });
    expect(JSON.stringify(body)).not.to.include(SECRET);
    expect(body.data).not.to.have.property('credentials');

    const one = await documentedCall(gw, 'GET', `/v2/connections/${body.data.id}`);
    expect(one.status).to.equal(200);
    expect(one.body.data).to.deep.equal(body.data);
    expect(JSON.stringify(one.body)).not.to.include(SECRET);
  });

  it('keeps credentials encrypted in the store and out of the logs', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/connections', { body: acme() });
    expect(await storedFilesInclude(gw.dataDir, created.body.data.id), 'the record is in the files read').to.equal(true);
    expect(await storedFilesInclude(gw.dataDir, SECRET)).to.equal(false);
    expect(gw.logs()).not.to.include(SECRET);
  });

  it('lists with where, sort, fields, limit and offset, and pagination meta', async () => {
    await documentedCall(gw, 'POST', '/v2/connections', { body: acme({ name: 'US one', metadata: { region: 'us' } }) });
    const list = await documentedCall(gw, 'GET', '/v2/connections?where=metadata.region==us&fields=id,name,metadata&sort=-createdOn&limit=1');
    expect(list.status).to.equal(200);
    expect(list.body.data).to.have.length(1);
    expect(Object.keys(list.body.data[0])).to.deep.equal(['id', 'name', 'metadata']);
    expect(list.body.data[0].name).to.equal('US one');
    expect(list.body.meta.pagination).to.deep.equal({ totalCount: 1, totalCountExact: true, hasNextPage: false, hasPreviousPage: false });
    const all = await documentedCall(gw, 'GET', '/v2/connections?limit=1&offset=1');
    expect(all.body.meta.pagination.hasPreviousPage).to.equal(true);
    const bad = await documentedCall(gw, 'GET', '/v2/connections?where=credentials==x');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    expect(bad.body.error.message).to.include('credentials');
  });

  const invalid: [string, Record<string, unknown>, string[]][] = [
    ['a missing required credential', acme({ credentials: {} }), ['credentials.apiKey: is required']],
    ['an unknown credential key (a typo)', acme({ credentials: { apiKye: SECRET } }), ['credentials.apiKey: is required', 'credentials.apiKye: is not an argument of this auth (expected: apiKey)']],
    ['a credential of the wrong type', acme({ credentials: { apiKey: 42 } }), ['credentials.apiKey: must be a string']],
    ['a credential with a line break (it could not be sent: no header, query or form takes one as it is)', acme({ credentials: { apiKey: 'abcdefghi\nX-Inj: 1' } }), ['credentials.apiKey: must not contain line breaks or other control characters']],
    [
      'a credential a header carries with a character beyond Latin-1 (a key pasted with typographic quotes: every run would fail)',
      acme({ credentials: { apiKey: '\u201csk-live-123\u201d' } }),
      ['credentials.apiKey: is sent in a header (Authorization), so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign)'],
    ],
    [
      'an imported OAuth access token with a character beyond Latin-1',
      { appSlug: 'oauthy', credentials: { accessToken: 'at\u20ac1' } },
      ['credentials.accessToken: is sent in a header (Authorization), so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign)'],
    ],
    ['a missing host variable the API needs', acme({ metadata: {} }), ['metadata.region: is required']],
    ['a host variable outside its options', acme({ metadata: { region: 'mars' } }), ['metadata.region: must be one of "eu", "us"']],
    ['an unknown app', acme({ appSlug: 'nope' }), ['appSlug: no app with slug "nope"']],
    ['an unknown auth', acme({ authId: 'password' }), ['authId: app "acme-crm" has no auth "password" (it has: api-key)']],
    ['no appSlug and an unknown field', { credentials: {}, colour: 'red' }, ['body.appSlug: is required', 'colour: is not a known field']],
  ];
  for (const [name, body, messages] of invalid) {
    it(`refuses ${name} with 400 VALIDATION_ERROR naming the field`, async () => {
      const response = await documentedCall(gw, 'POST', '/v2/connections', { body });
      expect(response.status).to.equal(400);
      expect(response.body.error.code).to.equal('VALIDATION_ERROR');
      for (const message of messages) expect(response.body.error.message).to.include(message.replace(/^body\./, ''));
    });
  }

  it('requires tokens to import an OAuth 2.0 connection, and tells of the connect flow otherwise', async () => {
    const response = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'oauthy' } });
    expect(response.status).to.equal(400);
    expect(response.body.error.message).to.include('credentials.accessToken: is required');
    const imported = await documentedCall(gw, 'POST', '/v2/connections', {
      body: { appSlug: 'oauthy', credentials: { accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: '2030-01-01T00:00:00Z' } },
    });
    expect(imported.status).to.equal(201);
    expect(imported.body.data.tokenExpiresAt).to.equal('2030-01-01T00:00:00.000Z');
    expect(JSON.stringify(imported.body)).not.to.include('at-1');
  });

  it("treats another company's connections and end users as missing (404), and lists none of them", async () => {
    const mine = (await documentedCall(gw, 'POST', '/v2/connections', { body: acme() })).body.data.id;
    const theirs = { url: gw.url, apiKey: other.apiKey };
    for (const [method, p] of [['GET', `/v2/connections/${mine}`], ['DELETE', `/v2/connections/${mine}`]] as const) {
      const response = await documentedCall(theirs, method, p);
      expect(response.status, `${method} ${p}`).to.equal(404);
      expect(response.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${mine} does not exist` });
    }
    const list = await documentedCall(theirs, 'GET', '/v2/connections');
    expect(list.body.data).to.deep.equal([]);
    const endUser = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'mine-1' } })).body.data.userId;
    const withForeignUser = await documentedCall(theirs, 'POST', '/v2/connections', { body: acme({ endUserId: endUser }) });
    expect(withForeignUser.status).to.equal(404);
    expect(withForeignUser.body.error.message).to.equal(`end user ${endUser} does not exist`);
  });

  it('deletes a connection, which is then gone', async () => {
    const id = (await documentedCall(gw, 'POST', '/v2/connections', { body: acme() })).body.data.id;
    const deleted = await documentedCall(gw, 'DELETE', `/v2/connections/${id}`);
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ success: true, data: { id, deleted: true } });
    expect((await documentedCall(gw, 'GET', `/v2/connections/${id}`)).status).to.equal(404);
  });

  it('deletes a connection once however many DELETEs come at once: one 200, the rest 404', async () => {
    const id = (await documentedCall(gw, 'POST', '/v2/connections', { body: acme() })).body.data.id;
    const answers = await Promise.all(Array.from({ length: 20 }, () => documentedCall(gw, 'DELETE', `/v2/connections/${id}`)));
    expect(answers.filter((a) => a.status === 200)).to.have.length(1);
    const gone = answers.filter((a) => a.status !== 200);
    expect(gone.map((a) => a.status)).to.deep.equal(Array(19).fill(404));
    expect(gone[0]!.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${id} does not exist` });
  });

  it('answers CREDENTIALS_UNREADABLE naming the connection when its key is gone, without crashing', async () => {
    const { open } = await import('../../../engine/platform/crypto/cipher.ts');
    const { createKeyring } = await import('../../../engine/platform/crypto/keyring.ts');
    const { randomBytes } = await import('node:crypto');
    const id = (await documentedCall(gw, 'POST', '/v2/connections', { body: acme() })).body.data.id;
    const record = await gw.gateway.services.store.connections.findOne({ id });
    const error = (() => {
      try {
        open(createKeyring([randomBytes(32).toString('base64')]), id, record!.credentials);
      } catch (e) {
        return e as { code: string; status: number; message: string };
      }
      return null;
    })();
    expect(error).to.include({ code: 'CREDENTIALS_UNREADABLE', status: 500 });
    expect(error!.message).to.include(`the stored credentials of ${id} cannot be decrypted`);
  });
});
