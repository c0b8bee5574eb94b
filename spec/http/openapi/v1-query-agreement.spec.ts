import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, V1_DOCUMENT } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const RUN = '/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run';
const ajv = new Ajv2020({ strict: false });

/**
 * Whether the document allows this query string on GET /v1/companies, read
 * as a validating proxy would: every parameter declared, given once, and its
 * value valid against the parameter's schema (an integer parameter's text
 * read as a number when it spells one).
 */
function documentAllows(query: string): boolean {
  const params: any[] = V1_DOCUMENT.paths['/v1/companies'].get.parameters;
  const search = new URLSearchParams(query);
  for (const name of new Set(search.keys())) {
    const param = params.find((p) => p.in === 'query' && p.name === name);
    if (!param || search.getAll(name).length > 1) return false;
    const text = search.get(name)!;
    const value = param.schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
    if (!ajv.validate(param.schema, value)) return false;
  }
  return true;
}

describe('the v1 document and the service agree on what is valid', function () {
  this.timeout(30_000);

  describe('GET /v1/companies query parameters', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway();
    });
    after(async () => {
      await gw.stop();
    });

    const cases = [
      'fields=', 'fields=id,,name', 'fields=,id', 'fields=id,', 'fields=id,name', 'fields=id, name', 'fields=nope', 'fields=id,nope',
      'sort=', 'sort=-', 'sort=-name', 'sort=name,-createdOn', 'sort=settings', 'sort=nope', 'sort=name,', 'sort=--name',
      'where=', 'where=%20', 'where=plan==free',
      'limit=', 'limit=0', 'limit=1', 'limit=1000', 'limit=1001', 'limit=ten',
      'offset=', 'offset=-1', 'offset=0', 'offset=3',
    ];
    for (const query of cases) {
      it(`${query}: the service answers what the document says`, async () => {
        const { status, body } = await documentedCall(gw, 'GET', `/v1/companies?${query}`);
        const allowed = documentAllows(query);
        expect(status, `the document ${allowed ? 'allows' : 'forbids'} it; answered ${JSON.stringify(body).slice(0, 200)}`).to.equal(allowed ? 200 : 400);
        if (status === 400) expect(body.error.details.problems[0].field).to.equal(query.split('=')[0]);
      });
    }

    it('an unknown query parameter is 400 naming it, as the operation and its 400 response say', async () => {
      const op = V1_DOCUMENT.paths['/v1/companies'].get;
      expect(op.description).to.include('Any other query parameter is 400 VALIDATION_ERROR');
      const { status, body } = await documentedCall(gw, 'GET', '/v1/companies?limt=5');
      expect(status).to.equal(400);
      expect(body.error.details.problems).to.deep.equal([{ field: 'limt', rule: 'additionalProperties', message: 'is not a known query parameter' }]);
    });

    it('keeps the precise messages: an unknown field, an object to sort by, an empty where', async () => {
      const message = async (q: string) => (await documentedCall(gw, 'GET', `/v1/companies?${q}`)).body.error.message;
      expect(await message('fields=id,nope')).to.match(/^fields: unknown field "nope"; fields: id, name,/);
      expect(await message('sort=settings')).to.equal('sort: settings is an object and cannot be sorted by');
      expect(await message('fields=')).to.equal('fields: must be a comma-separated list of field names without empty entries');
      expect(await message('where=')).to.equal('where: must not be empty; leave `where` out to match everything');
    });
  });

  describe('the run path parameters', () => {
    const upstream = new Upstream();
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let installationId: string;
    let token: string;
    before(async () => {
      await upstream.start();
      const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), upstream.url);
      cleanup = defs.cleanup;
      gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
      const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'agree-1' } })).body.data.userId;
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, credentials: { apiKey: 'k' } } })).body.data.id;
      installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId }] } })).body.data.id;
      token = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
    });
    after(async () => {
      await gw.stop();
      await upstream.stop();
      await cleanup();
    });

    const schemaOf = (name: string) => V1_DOCUMENT.paths[RUN].post.parameters.find((p: any) => p.name === name).schema;
    const runV1 = (appId: string, version: string, actionId: string) =>
      documentedCall({ url: gw.url, apiKey: token }, 'POST', `/v1/installation/apps/${appId}/${version}/action/${actionId}/run`, { body: { installationId } });

    it('appVersion latest: the document says 400, and so does the service, naming appVersion and the rule', async () => {
      expect(ajv.validate(schemaOf('appVersion'), 'latest')).to.equal(false);
      const { status, body } = await runV1('shop', 'latest', 'list-orders');
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('VALIDATION_ERROR');
      expect(body.error.details.problems).to.deep.equal([{ field: 'appVersion', rule: 'pattern', message: 'must be published, draft or a version number' }]);
    });

    it('a numbered version the app does not have is valid in the document and 404 in the service', async () => {
      expect(ajv.validate(schemaOf('appVersion'), '7')).to.equal(true);
      const { status, body } = await runV1('shop', '7', 'list-orders');
      expect(status).to.equal(404);
      expect(body.error.code).to.equal('APP_VERSION_NOT_FOUND');
    });

    it('an appId or actionId over 128 characters is 400 in both', async () => {
      expect(ajv.validate(schemaOf('appId'), 'a'.repeat(129))).to.equal(false);
      expect((await runV1('a'.repeat(129), 'published', 'list-orders')).body.error.details.problems[0]).to.include({ field: 'appId', rule: 'maxLength' });
      expect((await runV1('shop', 'published', 'a'.repeat(129))).body.error.details.problems[0]).to.include({ field: 'actionId', rule: 'maxLength' });
    });
  });
});
