import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');

/** An app whose api.yaml lists in proxy.headers the headers it fills from the connection, beside a fixed one. */
const TENANTED = {
  'tenanted/app.yaml': 'id: tenanted\nslug: tenanted\nname: Tenanted\ndescription: Headers filled from the connection, listed in proxy.headers too.\npublished: 1\n',
  'tenanted/versions/1/api.yaml': [
    'baseUrl: __BASE__/tenanted',
    'headers:',
    "  X-Api-Version: '2024-01'",
    "  X-Tenant: '{{tenant}}'",
    'auths:',
    '  - key',
    'arguments:',
    '  - key: tenant',
    '    dataType: String',
    '    required: true',
    '  - key: account',
    '    externalKey: X-Account',
    '    dataType: String',
    '    location: Header',
    '    required: true',
    'proxy:',
    '  headers: [X-Tenant, X-Account, X-Api-Version, Idempotency-Key]',
    '',
  ].join('\n'),
  'tenanted/versions/1/auths/key.yaml': "type: ApiKey\nid: key\nname: API key\nin: Header\nparameterName: X-Api-Key\nvalue: '{{apiKey}}'\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n",
  'tenanted/versions/1/actions/ping.yaml': 'id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\n',
};

describe("the proxy: an API header filled from the connection stays the connection's, even when api.yaml's proxy.headers lists it", function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let tenanted: string;

  before(async () => {
    await upstream.start();
    const extra = Object.fromEntries(Object.entries(TENANTED).map(([file, text]) => [file, text.replace('__BASE__', upstream.url)]));
    const defs = await definitionsFor(FIXTURE, upstream.url, extra);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    const created = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'tenanted', credentials: { apiKey: 'tenanted-key-0123456789' }, metadata: { tenant: 'acme', account: 'acct-1' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    tenanted = created.body.data.id as string;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  it("sends the connection's {{tenant}} and Header argument whatever the caller sends; a listed fixed header and a listed header of the caller's own go on", async () => {
    upstream.on('GET /tenanted/orders', () => ({ body: {} }));
    const answer = await send(gw, 'GET', `/v2/proxy/${tenanted}/orders`, {
      headers: { 'x-tenant': 'another-tenant', 'X-Account': 'acct-of-someone-else', 'x-api-version': '2025-06', 'idempotency-key': 'k-1' },
    });
    expect(answer.status).to.equal(200);
    const [seen] = upstream.calls('GET /tenanted/orders');
    expect(seen!.headers['x-tenant'], 'api.yaml: X-Tenant: {{tenant}}').to.equal('acme');
    expect(seen!.headers['x-account'], 'the API argument located in a header').to.equal('acct-1');
    expect(seen!.headers['x-api-version'], "api.yaml's fixed header, replaced by the caller's").to.equal('2025-06');
    expect(seen!.headers['idempotency-key']).to.equal('k-1');
  });
});
