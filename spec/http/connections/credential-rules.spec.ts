import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const KEY = '8f14e45fceea167a5a36dedd4bea2543';

/**
 * The value rules of an auth's arguments (pattern, minLength, format, ...) hold
 * when a connection is created, not only on its first run: Mailchimp's API
 * key must end in its data center, and a key without one is refused at once.
 */
describe('credentials held to their auth arguments\' value rules (bundled Mailchimp app)', function () {
  this.timeout(30_000);
  let gw: TestGateway;
  const create = (credentials: Record<string, unknown>) => documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'mailchimp', credentials } });

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR: path.join(ROOT, 'definitions') });
  });
  after(async () => {
    await gw.stop();
  });

  it('refuses an API key without its data center suffix with 400 VALIDATION_ERROR naming the field and the rule, never the key', async () => {
    const response = await create({ apiKey: KEY });
    expect(response.status).to.equal(400);
    expect(response.body.error.code).to.equal('VALIDATION_ERROR');
    expect(response.body.error.details.problems).to.deep.equal([
      { field: 'credentials.apiKey', rule: 'pattern', message: 'must match the pattern ^[0-9a-f]+-[a-z]+[0-9]+$' },
    ]);
    expect(JSON.stringify(response.body)).not.to.include(KEY);
  });

  it('refuses a GitLab address without a scheme in the metadata, naming the field and the rule', async () => {
    const response = await documentedCall(gw, 'POST', '/v2/connections', {
      body: { appSlug: 'gitlab', credentials: { token: 'glpat-9f8e7d6c5b4a3210zyxw' }, metadata: { instanceUrl: 'gitlab.example.com' } },
    });
    expect(response.status).to.equal(400);
    expect(response.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.deep.equal(['metadata.instanceUrl format']);
  });

  it('creates the connection when the key names its data center', async () => {
    const response = await create({ apiKey: `${KEY}-us6` });
    expect(response.status).to.equal(201);
    expect(JSON.stringify(response.body)).not.to.include(KEY);
  });
});
