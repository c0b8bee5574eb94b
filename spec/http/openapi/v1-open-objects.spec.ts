import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, objectSchemas, V1_DOCUMENT } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const RUN = '/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run';

const json = (op: any, status = '200') => op.responses[status].content['application/json'].schema;

describe('the v1 document types open objects as open, and says what they hold', function () {
  this.timeout(30_000);

  it('states additionalProperties on every object schema (a generator reads a missing one as "no properties")', () => {
    const silent = objectSchemas(V1_DOCUMENT).filter(([, schema]) => !('additionalProperties' in schema)).map(([at]) => at);
    expect(silent).to.deep.equal([]);
  });

  it('metadata, actionArguments and settings hold any JSON value by key', () => {
    const metadata = V1_DOCUMENT.paths['/v1/users'].post.requestBody.content['application/json'].schema.properties.metadata;
    const actionArguments = V1_DOCUMENT.paths[RUN].post.requestBody.content['application/json'].schema.properties.actionArguments;
    const settings = json(V1_DOCUMENT.paths['/v1/companies'].get).properties.data.items.properties.settings;
    for (const schema of [metadata, actionArguments, settings]) {
      expect(schema.type).to.equal('object');
      expect(schema.additionalProperties).to.be.an('object').that.does.not.have.property('type');
    }
  });

  it('the envelope: meta.retries, meta.response and meta.action are required, and say what they hold', () => {
    const meta = json(V1_DOCUMENT.paths[RUN].post).properties.meta;
    expect(meta.required).to.include.members(['retries', 'response', 'action']);
    expect(meta.additionalProperties, 'a mapping may add its own meta').to.not.equal(false);
    const { response, action } = meta.properties;
    expect(response.required).to.deep.equal(['status', 'headers', 'body']);
    expect(response.additionalProperties).to.equal(false);
    expect(response.properties.status.type).to.equal('integer');
    expect(response.properties.headers.additionalProperties).to.deep.equal({ type: 'string' });
    expect(action.required).to.deep.equal(['id', 'slug', 'operation', 'query', 'body']);
    expect(action.additionalProperties).to.equal(false);
    expect(action.properties.query.type).to.equal('object');
  });

  describe('real answers match these schemas', () => {
    const upstream = new Upstream();
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    before(async () => {
      await upstream.start();
      const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), upstream.url);
      cleanup = defs.cleanup;
      gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    });
    after(async () => {
      await gw.stop();
      await upstream.stop();
      await cleanup();
    });

    it('a run with actionArguments answers an envelope whose meta.response and meta.action match the document', async () => {
      const endUserId = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'open-1', metadata: { region: 'eu', seats: 3, tags: ['a'], nested: { on: true } } } })).body.data.userId;
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, credentials: { apiKey: 'k' } } })).body.data.id;
      const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId }] } })).body.data.id;
      const token = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
      upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o1' }], next: 'c2' } } }));
      const { status, body } = await documentedCall({ url: gw.url, apiKey: token }, 'POST', '/v1/installation/apps/shop/published/action/list-orders/run', {
        body: { installationId, actionArguments: { status: 'paid' } },
      });
      expect(status).to.equal(200);
      expect(body.meta.response).to.have.keys(['status', 'headers', 'body']);
      expect(body.meta.action).to.deep.equal({ id: 'list-orders', slug: 'list-orders', operation: 'list', query: { status: 'paid' }, body: null });
    });

    it('companies answer their settings as documented', async () => {
      await gw.gateway.services.store.companies.updateOne({}, { $set: { settings: { locale: 'de', seats: 5, flags: { beta: true } } } });
      const { status, body } = await documentedCall(gw, 'GET', '/v1/companies?fields=id,settings');
      expect(status).to.equal(200);
      expect(body.data[0].settings).to.deep.equal({ locale: 'de', seats: 5, flags: { beta: true } });
    });
  });
});
