import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const USER_AGENT = /^integration-gateway\/\d+\.\d+\.\d+$/;

/** A payments app with Header arguments, and a twin whose api.yaml sets its own User-Agent. */
function paymentsApp(slug: string, upstream: string, apiHeaders: string): Record<string, string> {
  return {
    [`${slug}/app.yaml`]: `id: ${slug}\nslug: ${slug}\nname: ${slug}\npublished: 1\n`,
    [`${slug}/versions/1/api.yaml`]: `baseUrl: ${upstream}/${slug}\nheaders:\n${apiHeaders}auths:\n  - key\n`,
    [`${slug}/versions/1/auths/key.yaml`]: `type: ApiKey\nid: key\nname: Key\nin: Header\nparameterName: X-Api-Key\nvalue: "{{apiKey}}"\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n`,
    [`${slug}/versions/1/actions/create-payment.yaml`]: [
      'id: create-payment',
      'slug: create-payment',
      'name: Create a payment',
      'operation: create',
      'method: POST',
      'path: /payments',
      'arguments:',
      '  - key: idempotencyKey',
      '    externalKey: Idempotency-Key',
      '    dataType: String',
      '    location: Header',
      '  - key: apiVersion',
      '    externalKey: X-Api-Version',
      '    dataType: String',
      '    location: Header',
      '  - key: userAgent',
      '    externalKey: User-Agent',
      '    dataType: String',
      '    location: Header',
      '  - key: amount',
      '    dataType: Number',
      '    location: Body',
      'response: \'{ "success": status < 300, "data": body }\'',
      '',
    ].join('\n'),
  };
}

describe('outbound headers: Header arguments and the default User-Agent, as the upstream sees them', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  const connect = async (appSlug: string, credentials: Record<string, string>) => (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials } })).body.data.id as string;
  const run = (app: string, action: string, connectionId: string, args: unknown = {}) =>
    call(gw, 'POST', `/v2/universal/apps/${app}/actions/${action}/run`, { body: { connectionId, arguments: args } });

  before(async () => {
    await upstream.start();
    const extra = {
      ...paymentsApp('pay', upstream.url, '  X-Api-Version: "2023-01-01"\n'),
      ...paymentsApp('pay-ua', upstream.url, '  User-Agent: acme-connector/2.0\n'),
    };
    const defs = await definitionsFor(FIXTURE, upstream.url, extra);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => {
    upstream.reset();
    for (const slug of ['pay', 'pay-ua']) upstream.on(`POST /${slug}/payments`, () => ({ status: 201, body: { id: 'p-1' } }));
  });

  it('sends a Header argument under its external key, over the API header of the same name, next to the auth header', async () => {
    const connectionId = await connect('pay', { apiKey: 'k-1' });
    const { status, body } = await run('pay', 'create-payment', connectionId, { idempotencyKey: 'order-17-1', apiVersion: '2024-06-30', amount: 10 });
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    const [sent] = upstream.calls('POST /pay/payments');
    expect(sent!.headers['idempotency-key']).to.equal('order-17-1');
    expect(sent!.headers['x-api-version']).to.equal('2024-06-30');
    expect(sent!.headers['x-api-key']).to.equal('k-1');
    expect(JSON.parse(sent!.body)).to.deep.equal({ amount: 10 });
  });

  it('refuses a value with a line break (400 VALIDATION_ERROR naming the argument), and nothing is sent', async () => {
    const connectionId = await connect('pay', { apiKey: 'k-1' });
    const { status, body } = await run('pay', 'create-payment', connectionId, { idempotencyKey: 'k\r\nX-Admin: yes' });
    expect(status).to.equal(400);
    expect(body.success).to.equal(false);
    expect(body.error.code).to.equal('VALIDATION_ERROR');
    expect(body.error.details.problems).to.deep.equal([
      { field: 'idempotencyKey', rule: 'header', message: 'is sent in header Idempotency-Key, so it must not contain line breaks or other control characters' },
    ]);
    expect(upstream.received).to.have.length(0);
  });

  it('sends integration-gateway/<version> as the User-Agent of every app call', async () => {
    const connectionId = await connect('pay', { apiKey: 'k-1' });
    await run('pay', 'create-payment', connectionId);
    expect(upstream.calls('POST /pay/payments')[0]!.headers['user-agent']).to.match(USER_AGENT);
    const { version } = (await import('../../../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect(upstream.calls('POST /pay/payments')[0]!.headers['user-agent']).to.equal(`integration-gateway/${version}`);
  });

  it("keeps the User-Agent api.yaml's headers set, and a User-Agent Header argument over both", async () => {
    const connectionId = await connect('pay-ua', { apiKey: 'k-1' });
    await run('pay-ua', 'create-payment', connectionId);
    expect(upstream.calls('POST /pay-ua/payments')[0]!.headers['user-agent']).to.equal('acme-connector/2.0');
    await run('pay-ua', 'create-payment', connectionId, { userAgent: 'caller-tool/1' });
    expect(upstream.calls('POST /pay-ua/payments')[1]!.headers['user-agent']).to.equal('caller-tool/1');
  });

  it('sends it on token calls too (OAuth 2.0 client credentials)', async () => {
    upstream.on('POST /machine/token', () => ({ body: { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 } }));
    upstream.on('GET /machine/jobs', () => ({ body: { jobs: [] } }));
    const connectionId = await connect('machine', { clientId: 'c', clientSecret: 's' });
    const { status } = await run('machine', 'list-jobs', connectionId);
    expect(status).to.equal(200);
    expect(upstream.calls('POST /machine/token')[0]!.headers['user-agent']).to.match(USER_AGENT);
    expect(upstream.calls('GET /machine/jobs')[0]!.headers['user-agent']).to.match(USER_AGENT);
  });
});
