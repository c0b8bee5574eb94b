import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream, type ReceivedRequest } from '../../helpers/upstream.ts';
import { storedFilesInclude } from '../../helpers/stored-files.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run-client-credentials');
const SECRET = 'robot-client-secret-0001';
const NEW_SECRET = 'robot-client-secret-0002';

/** The client id and secret a token request carried in its Basic header. */
function basicOf(request: ReceivedRequest): string {
  const header = String(request.headers.authorization ?? '');
  return Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
}

describe('an OAuth2ClientCredentials auth that declares clientId and clientSecret as arguments', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  const create = (credentials: Record<string, unknown>) => documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'robot', credentials } });
  const runJobs = (connectionId: string) => documentedCall(gw, 'POST', '/v2/universal/apps/robot/actions/list-jobs/run', { body: { connectionId } });
  const problemsOf = (body: any) => body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`);

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  beforeEach(() => {
    let issued = 0;
    upstream.on('POST /robot/oauth/token', () => ({ body: { access_token: `robot-token-${++issued}`, token_type: 'bearer', expires_in: 3600 } }));
    upstream.on('GET /robot/jobs', () => ({ body: { jobs: [{ id: 'j1' }] } }));
  });
  afterEach(() => upstream.reset());

  it('lists each missing or wrong credential once on create', async () => {
    const missing = await create({});
    expect(missing.status).to.equal(400);
    expect(missing.body.error.code).to.equal('VALIDATION_ERROR');
    expect(missing.body.error.details.problems).to.deep.equal([
      { field: 'credentials.clientId', rule: 'required', message: 'is required' },
      { field: 'credentials.clientSecret', rule: 'required', message: 'is required' },
    ]);

    const wrong = await create({ clientId: 'x'.repeat(65), clientSecret: 42, clientSecrte: SECRET });
    expect(wrong.status).to.equal(400);
    expect(problemsOf(wrong.body)).to.deep.equal(['credentials.clientId maxLength', 'credentials.clientSecret type', 'credentials.clientSecrte unknown']);
    expect(JSON.stringify(wrong.body)).not.to.include(SECRET);
  });

  it('creates the connection, gets a token with its client id and secret, and runs', async () => {
    const created = await create({ clientId: 'robot-client', clientSecret: SECRET });
    expect(created.status).to.equal(201);
    expect(JSON.stringify(created.body)).not.to.include(SECRET);

    const { status, body } = await runJobs(created.body.data.id);
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 'j1' }]);
    const [token] = upstream.calls('POST /robot/oauth/token');
    expect(basicOf(token!)).to.equal(`robot-client:${SECRET}`);
    expect(new URLSearchParams(token!.body).get('grant_type')).to.equal('client_credentials');
    expect(upstream.calls('GET /robot/jobs')[0]!.headers.authorization).to.equal('Bearer robot-token-1');

    expect(JSON.stringify(body)).not.to.include(SECRET);
    expect(gw.logs()).not.to.include(SECRET);
    expect(await storedFilesInclude(gw.dataDir, SECRET)).to.equal(false);
  });

  it('PATCH replaces the client id and secret (each problem once), and the next run gets its token with the new ones', async () => {
    const { id } = (await create({ clientId: 'robot-client', clientSecret: SECRET })).body.data;
    await runJobs(id);

    const half = await documentedCall(gw, 'PATCH', `/v2/connections/${id}`, { body: { credentials: { clientId: 'robot-client-2' } } });
    expect(half.status).to.equal(400);
    expect(half.body.error.details.problems).to.deep.equal([{ field: 'credentials.clientSecret', rule: 'required', message: 'is required' }]);

    const patched = await documentedCall(gw, 'PATCH', `/v2/connections/${id}`, { body: { credentials: { clientId: 'robot-client-2', clientSecret: NEW_SECRET } } });
    expect(patched.status).to.equal(200);
    expect(JSON.stringify(patched.body)).not.to.include(NEW_SECRET);

    const { body } = await runJobs(id);
    expect(body.success).to.equal(true);
    expect(upstream.calls('POST /robot/oauth/token').map(basicOf)).to.deep.equal([`robot-client:${SECRET}`, `robot-client-2:${NEW_SECRET}`]);
  });

  it('a token endpoint refusing the client never reflects the secret', async () => {
    const { id } = (await create({ clientId: 'robot-client', clientSecret: SECRET })).body.data;
    upstream.on('POST /robot/oauth/token', () => ({ status: 401, body: { error: 'invalid_client', error_description: `unknown client secret ${SECRET}` } }));
    const refused = await runJobs(id);
    expect(refused.status).to.be.within(400, 599);
    expect(refused.body.success).to.equal(false);
    expect(JSON.stringify(refused.body)).not.to.include(SECRET);
    expect(gw.logs()).not.to.include(SECRET);
  });
});
