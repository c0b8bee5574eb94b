import { expect } from 'chai';
import path from 'node:path';
import type { LookupRun, RunAction } from '../../../engine/core/arguments/index.ts';
import { ARGUMENT_FIXTURES } from '../../support/argument-cases.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { documentedCall, V2_DOCUMENT } from '../../helpers/openapi.ts';

const APPS = '/v2/universal/apps';
const ORDER = `${APPS}/shop/actions/create-order`;

/** The describe endpoints over HTTP, on the definitions in spec/fixtures/arguments/describe. */
describe('describe endpoints for workflow builders', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR: path.join(ARGUMENT_FIXTURES, 'describe') });
  });
  afterEach(() => {
    delete gw.gateway.services.runAction;
  });
  after(async () => {
    await gw.stop();
  });

  it('need an API key', async () => {
    const res = await documentedCall(gw, 'GET', APPS, { auth: null });
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('UNAUTHORIZED');
  });

  it('GET /v2/universal/apps lists apps with their versions', async () => {
    const res = await documentedCall(gw, 'GET', APPS);
    expect(res.status).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.data).to.deep.equal([
      { id: 'shop', slug: 'shop', name: 'Shop', description: 'A made-up shop API that the describe endpoints are tested on.', website: 'https://shop.example.test/docs', published: 1, versions: [1], draft: true },
    ]);
    expect(res.body.meta.count).to.equal(1);
  });

  it('GET .../actions lists the published version, or the one ?version names', async () => {
    const published = await documentedCall(gw, 'GET', `${APPS}/shop/actions`);
    expect(published.status).to.equal(200);
    expect(published.body.data.map((a: { slug: string }) => a.slug)).to.deep.equal(['create-order', 'list-lists']);
    expect(published.body.data[0]).to.deep.include({ operation: 'create', method: 'POST', path: '/orders', cursorArgument: null });
    expect(published.body.meta).to.deep.include({ version: 1 });

    const draft = await documentedCall(gw, 'GET', `${APPS}/shop/actions?version=draft`);
    expect(draft.body.data.map((a: { slug: string }) => a.slug)).to.deep.equal(['cancel-order', 'create-order', 'list-lists']);
    expect(draft.body.meta.version).to.equal('draft');
    expect((await documentedCall(gw, 'GET', `${APPS}/shop/actions?version=1`)).body.data).to.have.length(2);
  });

  it('say what the document says of ?version=: any name the app lacks, latest included, is 404 APP_VERSION_NOT_FOUND, not a malformed request', async () => {
    const documented = V2_DOCUMENT.paths['/v2/universal/apps/{appSlug}/actions'].get.parameters.find((p: any) => p.name === 'version').schema;
    expect(new Ajv2020({ strict: false }).validate(documented, 'latest'), 'the document refuses version=latest').to.equal(true);
    const latest = await documentedCall(gw, 'GET', `${APPS}/shop/actions?version=latest`);
    expect([latest.status, latest.body.error.code]).to.deep.equal([404, 'APP_VERSION_NOT_FOUND']);
  });

  it('refuse an empty ?version= (400 naming version) rather than reading it as published', async () => {
    const listed = await call(gw, 'GET', `${APPS}/shop/actions?version=`);
    const run = await call(gw, 'POST', `${APPS}/shop/actions/cancel-order/run?version=`, { body: { connectionId: 'con_nothing', arguments: {} } });
    for (const empty of [listed, run]) {
      expect([empty.status, empty.body.error.code]).to.deep.equal([400, 'VALIDATION_ERROR']);
      expect(empty.body.error.message).to.include('version: must be published, draft or a version number, not empty');
    }
  });

  it('answer APP_NOT_FOUND, APP_VERSION_NOT_FOUND and ACTION_NOT_FOUND (404)', async () => {
    const app = await documentedCall(gw, 'GET', `${APPS}/nope/actions`);
    expect([app.status, app.body.error.code]).to.deep.equal([404, 'APP_NOT_FOUND']);
    const version = await documentedCall(gw, 'GET', `${APPS}/shop/actions?version=7`);
    expect([version.status, version.body.error.code]).to.deep.equal([404, 'APP_VERSION_NOT_FOUND']);
    const action = await documentedCall(gw, 'GET', `${APPS}/shop/actions/cancel-order`);
    expect([action.status, action.body.error.code]).to.deep.equal([404, 'ACTION_NOT_FOUND']);
  });

  it('GET .../actions/{actionSlug} shows every argument with every property, hidden ones marked', async () => {
    const res = await documentedCall(gw, 'GET', ORDER);
    expect(res.status).to.equal(200);
    const [action] = res.body.data;
    expect(action).to.deep.include({ id: 'create-order', name: 'Create an order', description: 'Creates an order for a customer.', cursorArgument: null });
    const byKey = Object.fromEntries(action.arguments.map((a: { key: string }) => [a.key, a]));
    expect(Object.keys(byKey)).to.deep.equal(['status', 'currency', 'customer', 'country', 'listId', 'note', 'tags', 'deliverBy', 'source', 'quantity', 'reference', 'contact']);
    expect(byKey.status).to.deep.equal({
      key: 'status',
      externalKey: null,
      label: 'Status',
      description: 'Where the order starts.',
      dataType: 'List',
      location: 'Body',
      placedIn: 'Body',
      parent: null,
      required: false,
      hidden: false,
      default: 'pending',
      mapper: null,
      escape: null,
      integer: false,
      minimum: null,
      maximum: null,
      minLength: null,
      maxLength: null,
      pattern: null,
      component: null,
      multipleValues: null,
      arrayStyle: null,
      format: null,
      list: { type: 'Fixed', options: [{ value: 'pending', label: 'Pending' }, { value: 'paid' }], optionsPath: `${ORDER}/arguments/status/options` },
    });
    expect(byKey.note).to.deep.include({ component: 'RichTextEditor', mapper: '$trim(value)', maxLength: 500, escape: { characters: "'", prefix: "'" }, label: 'note' });
    expect(byKey.country).to.deep.include({ parent: 'customer', location: null, placedIn: 'Body', externalKey: 'customer_info.country_code' });
    expect(byKey.listId.list).to.deep.equal({
      type: 'Lookup',
      action: 'list-lists',
      actionArguments: { kind: 'marketing' },
      valueKey: 'id',
      labelKey: 'meta.title',
      optionsPath: `${ORDER}/arguments/listId/options`,
    });
    expect(byKey.tags.multipleValues).to.deep.equal({ dataType: 'String', delimiter: ',' });
    expect(byKey.deliverBy.format).to.equal('Date');
    expect(byKey.source).to.deep.include({ hidden: true, default: 'gateway' });
  });

  it('GET .../actions/{actionSlug} shows the value rules a caller is held to', async () => {
    const res = await documentedCall(gw, 'GET', ORDER);
    expect(res.status).to.equal(200);
    const byKey = Object.fromEntries(res.body.data[0].arguments.map((a: { key: string }) => [a.key, a]));
    const rules = (a: Record<string, unknown>) => ({ integer: a.integer, minimum: a.minimum, maximum: a.maximum, minLength: a.minLength, maxLength: a.maxLength, pattern: a.pattern, format: a.format });
    expect(rules(byKey.quantity)).to.deep.equal({ integer: true, minimum: 1, maximum: 100, minLength: null, maxLength: null, pattern: null, format: null });
    expect(rules(byKey.reference)).to.deep.equal({ integer: false, minimum: null, maximum: null, minLength: 3, maxLength: 20, pattern: '^[A-Z0-9-]+$', format: null });
    expect(rules(byKey.contact)).to.deep.equal({ integer: false, minimum: null, maximum: null, minLength: null, maxLength: null, pattern: null, format: 'email' });
    expect(rules(byKey.deliverBy)).to.deep.include({ integer: false, format: 'Date' });
  });

  it('options paths keep the version asked for', async () => {
    const res = await documentedCall(gw, 'GET', `${ORDER}?version=draft`);
    expect(res.body.data[0].arguments[0].list.optionsPath).to.equal(`${ORDER}/arguments/status/options?version=draft`);
  });

  describe('POST .../arguments/{key}/options', () => {
    it('answers Fixed options as written, the label defaulting to the value', async () => {
      const res = await documentedCall(gw, 'POST', `${ORDER}/arguments/status/options`, { body: { connectionId: 'c-1' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ success: true, data: [{ value: 'pending', label: 'Pending' }, { value: 'paid', label: 'paid' }] });
      expect(res.body.meta).to.deep.include({ argument: 'status', listType: 'Fixed', count: 2 });
    });

    it('answers ISO 4217 currencies and ISO 3166-1 countries with their English names, no connection needed', async () => {
      const currencies = await documentedCall(gw, 'POST', `${ORDER}/arguments/currency/options`, { body: {} });
      expect(currencies.status).to.equal(200);
      expect(currencies.body.data).to.deep.include({ value: 'EUR', label: 'Euro' });
      expect(currencies.body.data).to.deep.include({ value: 'JPY', label: 'Japanese Yen' });
      const countries = await documentedCall(gw, 'POST', `${ORDER}/arguments/country/options`, { body: {} });
      expect(countries.status).to.equal(200);
      expect(countries.body.data).to.deep.include({ value: 'DE', label: 'Germany' });
      expect(countries.body.data.length).to.be.greaterThan(240);
      expect(countries.body.meta.listType).to.equal('Country');
    });

    it('answers ARGUMENT_NOT_FOUND (404) and ARGUMENT_HAS_NO_OPTIONS (400)', async () => {
      const missing = await documentedCall(gw, 'POST', `${ORDER}/arguments/colour/options`, { body: {} });
      expect([missing.status, missing.body.error.code]).to.deep.equal([404, 'ARGUMENT_NOT_FOUND']);
      const notList = await documentedCall(gw, 'POST', `${ORDER}/arguments/note/options`, { body: {} });
      expect([notList.status, notList.body.error.code]).to.deep.equal([400, 'ARGUMENT_HAS_NO_OPTIONS']);
    });

    it('a Lookup needs a connectionId', async () => {
      const res = await documentedCall(gw, 'POST', `${ORDER}/arguments/listId/options`, { body: {} });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.details.problems).to.deep.equal([{ field: 'connectionId', rule: 'required', message: 'is required: a Lookup list runs its action with this connection' }]);
    });

    it('a Lookup answers LOOKUP_UNAVAILABLE (501) while no run engine is wired, never made-up options', async () => {
      const res = await documentedCall(gw, 'POST', `${ORDER}/arguments/listId/options`, { body: { connectionId: 'c-1' } });
      expect(res.status).to.equal(501);
      expect(res.body.error.code).to.equal('LOOKUP_UNAVAILABLE');
    });

    it('a Lookup runs its action with its actionArguments and the connection, and maps rows with valueKey and labelKey', async () => {
      const runs: LookupRun[] = [];
      const runAction: RunAction = async (run) => {
        runs.push(run);
        return { success: true, data: [{ id: 7, meta: { title: 'Newsletter' } }, { id: 'x9' }, { name: 'no id' }, { id: 7, meta: { title: 'Duplicate' } }] };
      };
      gw.gateway.services.runAction = runAction;
      const res = await documentedCall(gw, 'POST', `${ORDER}/arguments/listId/options`, { body: { connectionId: 'c-1' } });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal([
        { value: 7, label: 'Newsletter' },
        { value: 'x9', label: 'x9' },
      ]);
      expect(runs).to.have.length(1);
      expect(runs[0]!.action.id).to.equal('list-lists');
      expect(runs[0]!.arguments).to.deep.equal({ kind: 'marketing' });
      expect(runs[0]!.connectionId).to.equal('c-1');
      expect(runs[0]!.companyId).to.be.a('string').and.not.empty;
      expect(runs[0]!.version.version).to.equal(1);
    });

    it('a Lookup whose action fails answers LOOKUP_FAILED (502)', async () => {
      gw.gateway.services.runAction = async () => ({ success: false, data: [], meta: { authenticated: false } });
      const res = await documentedCall(gw, 'POST', `${ORDER}/arguments/listId/options`, { body: { connectionId: 'c-1' } });
      expect([res.status, res.body.error.code]).to.deep.equal([502, 'LOOKUP_FAILED']);
    });
  });
});
