import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { runAdminCommand } from '../../../engine/admin/commands.ts';
import { open, seal } from '../../../engine/platform/crypto/cipher.ts';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

describe('re-encryption under a new key (credentials:reencrypt)', () => {
  let gw: TestGateway;
  let connectionId: string;
  let webhookSecret: string;
  before(async () => {
    // EGRESS_ALLOW: the webhook's host must resolve to an admitted address at registration (localhost, offline).
    gw = await startTestGateway({ DEFINITIONS_DIR: path.join(ROOT, 'spec/fixtures/connections'), ENCRYPTION_KEY: keyA, EGRESS_ALLOW: '127.0.0.1/32,::1/128' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'the-key' }, metadata: { region: 'eu' } } })).body.data.id;
    await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'c', clientSecret: 'the-client-secret' } });
    webhookSecret = (await call(gw, 'POST', '/v2/webhooks', { body: { url: 'https://localhost:9/in', events: ['end_user.deleted'] } })).body.data.secret;
  });
  after(async () => {
    await gw.stop();
  });

  it('re-seals every secret under the newest key, after which the old key can go', async () => {
    const { store } = gw.gateway.services;
    const rotated = createKeyring([keyB, keyA]);
    const first = await runAdminCommand({ store, keyring: rotated }, ['credentials:reencrypt', '--json']);
    expect(first.exitCode, first.output).to.equal(0);
    const report = JSON.parse(first.output);
    expect(report).to.include({ 'reencrypted.connections': 1, 'reencrypted.appConfigurations': 1, 'reencrypted.signingKeys': 1, 'reencrypted.webhookEndpoints': 1, unreadable: null, newestKey: rotated.current.id });

    const onlyB = createKeyring([keyB]);
    const connection = (await store.connections.findOne({ id: connectionId }))!;
    expect(connection.credentials.kid).to.equal(onlyB.current.id);
    expect(open<{ arguments: { apiKey: string } }>(onlyB, connectionId, connection.credentials).arguments.apiKey).to.equal('the-key');
    const configuration = (await store.appConfigurations.find({}))[0]!;
    expect(open<{ clientSecret: string }>(onlyB, configuration.id, configuration.secrets).clientSecret).to.equal('the-client-secret');
    const endpoint = (await store.webhookEndpoints.find({}))[0]!;
    expect(open<{ secret: string }>(onlyB, endpoint.id, endpoint.secret).secret).to.equal(webhookSecret);

    const again = JSON.parse((await runAdminCommand({ store, keyring: rotated }, ['credentials:reencrypt', '--json'])).output);
    expect(again['reencrypted.connections']).to.equal(0);
    expect(again.alreadyCurrent).to.be.at.least(3);
  });

  it('names a record no configured key opens, and carries on with the rest', async () => {
    const { store } = gw.gateway.services;
    const stranger = createKeyring([randomBytes(32).toString('base64')]);
    const foreign = { ...(await store.connections.findOne({ id: connectionId }))!, id: 'con_foreign', credentials: seal(stranger, 'con_foreign', { arguments: {} }) };
    await store.connections.insert(foreign);
    const report = JSON.parse((await runAdminCommand({ store, keyring: createKeyring([keyA, keyB]) }, ['credentials:reencrypt', '--json'])).output);
    expect(report.unreadable).to.match(/^the stored credentials of con_foreign cannot be decrypted: encrypted with key [0-9a-f]{16}, which is not among the configured ENCRYPTION_KEY values$/);
    expect(report['reencrypted.connections']).to.equal(1);
  });
});
