import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/form-arrays');

/**
 * Form bodies with arrays in the style the app reads (api.yaml's arrayStyle,
 * an argument's own): Mailgun takes `o:tag=a&o:tag=b`, and reads
 * `o:tag[0]=a` as a tag named `o:tag[0]`. Checked on the wire, as the app
 * receives it.
 */
describe('form bodies: arrays in the style of the API and of each argument (arrayStyle)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'mailer', credentials: { apiKey: 'key-1' } } })).body.data.id;
  });
  after(async () => {
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  it('repeats the key (the API), joins with commas, uses brackets or indices (arguments), and indexes arrays of objects', async () => {
    upstream.on('POST /v3/mg.example.test/messages', () => ({ body: { id: '<20260101.1@mg.example.test>', message: 'Queued. Thank you.' } }));
    const arguments_ = {
      domain: 'mg.example.test',
      to: ['ada@example.test', 'bob@example.test'],
      tags: ['newsletter', 'o\'brien & sons'],
      labels: ['a', 'b'],
      flags: ['x', 'y'],
      legacy: ['p', 'q'],
      attachments: [{ name: 'a.txt' }, { name: 'b.txt' }],
      options: { tracking: ['opens', 'clicks'] },
    };
    const run = await call(gw, 'POST', '/v2/universal/apps/mailer/actions/send-message/run', { body: { connectionId, arguments: arguments_ } });
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    const [sent] = upstream.calls('POST /v3/mg.example.test/messages');
    expect(sent!.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(sent!.body.split('&').map(decodeURIComponent).map((pair) => pair.replaceAll('+', ' '))).to.deep.equal([
      'to=ada@example.test',
      'to=bob@example.test',
      'o:tag=newsletter',
      "o:tag=o'brien & sons",
      'labels=a,b',
      'flags[]=x',
      'flags[]=y',
      'legacy[0]=p',
      'legacy[1]=q',
      'attachments[0][name]=a.txt',
      'attachments[1][name]=b.txt',
      'options[tracking]=opens',
      'options[tracking]=clicks',
    ]);
    // What the mapping and the caller see of the request is the body as data, whatever its encoding.
    expect(run.body.meta.action.body.tags ?? run.body.meta.action.body['o:tag']).to.deep.equal(['newsletter', "o'brien & sons"]);
  });
});
