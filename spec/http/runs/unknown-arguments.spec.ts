import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/mcp');

/** Keys of one to three letters or digits, in order: as many as fit a body just under the 1 MiB limit. */
function shortKeys(count: number): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const keys: string[] = [];
  for (let length = 1; keys.length < count; length++) {
    const total = alphabet.length ** length;
    for (let n = 0; n < total && keys.length < count; n++) {
      let key = '';
      for (let i = 0, rest = n; i < length; i++, rest = Math.floor(rest / alphabet.length)) key = alphabet[rest % alphabet.length] + key;
      keys.push(key);
    }
  }
  return keys;
}

describe('a run sent arguments the action does not have, as many as a body holds', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let connectionId: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'store', credentials: { apiKey: 'main-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });

  it('answers 400 VALIDATION_ERROR naming the first 100 and counting the rest, never a failure of the gateway (130,000 keys overflowed a spread push)', async () => {
    const keys = shortKeys(130_000);
    const body = JSON.stringify({ connectionId, arguments: Object.fromEntries(keys.map((key) => [key, 0])) });
    expect(Buffer.byteLength(body)).to.be.below(1024 * 1024);
    const answer = await call(gw, 'POST', '/v2/universal/apps/store/actions/list-orders/run', { body });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).to.equal(400);
    expect(answer.body.error.code).to.equal('VALIDATION_ERROR');
    expect(answer.body.error.message).to.match(/^0: is not an argument of action list-orders \(its arguments: [^)]*\); 1: /);
    expect(answer.body.error.message).to.match(/; and 129900 more problems \(the first 100 are listed\)$/);
    expect(answer.body.error.details.problems).to.have.length(100);
    expect(upstream.received).to.have.length(0);
  });
});
