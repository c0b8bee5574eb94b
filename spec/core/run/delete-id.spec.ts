import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run-deletes');

describe('a delete answers the deleted id, kept in what the mapping said', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (action: string, args: Record<string, unknown>) =>
    documentedCall(gw, 'POST', `/v2/universal/apps/things/actions/${action}/run`, { body: { connectionId, arguments: args } });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'things', credentials: { apiKey: 'things-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it("DELETE /groups/:groupId/things/:thingId answers the thing's id (the last path parameter), not the group's", async () => {
    upstream.on('DELETE /api/groups/g1/things/t1', () => ({ status: 204 }));
    const { status, body } = await run('delete-thing', { groupId: 'g1', thingId: 't1' });
    expect(status).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 't1' }]);
  });

  it('merges the id into a mapping row that has none: [{deleted: true}] becomes [{id, deleted: true}]', async () => {
    upstream.on('DELETE /api/groups/g1/things/t1', () => ({ status: 204 }));
    const { body } = await run('delete-thing-flagged', { groupId: 'g1', thingId: 't1' });
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 't1', deleted: true }]);
  });

  it('keeps a row that carries its own id as it is, and gives the id only to the rows without one', async () => {
    upstream.on('DELETE /api/groups/g1/things/t1', () => ({ body: { id: 'thing-1', name: 'Lamp', deleted: true } }));
    const own = await run('delete-thing', { groupId: 'g1', thingId: 't1' });
    expect(own.body.data).to.deep.equal([{ id: 'thing-1', name: 'Lamp', deleted: true }]);

    upstream.on('DELETE /api/groups/g1/things/t1', () => ({ body: [{ id: 'thing-1', deleted: true }, { deleted: true, cascade: 'photo' }] }));
    const mixed = await run('delete-thing', { groupId: 'g1', thingId: 't1' });
    expect(mixed.body.data).to.deep.equal([
      { id: 'thing-1', deleted: true },
      { id: 't1', deleted: true, cascade: 'photo' },
    ]);
  });

  it('idArgument names a Query argument: its value is the id, whatever name it is sent under', async () => {
    upstream.on('DELETE /api/groups/g1/things', () => ({ status: 204 }));
    const { body } = await run('delete-by-query', { groupId: 'g1', thing: 't7' });
    expect(upstream.calls('DELETE /api/groups/g1/things')[0]!.query.get('thing_id')).to.equal('t7');
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 't7' }]);
  });

  it('idArgument names a Body argument: merged into the mapped row, whose other fields stay', async () => {
    upstream.on('POST /api/groups/g1/things.delete', () => ({ body: { ok: true, reason: 'duplicate' } }));
    const { body } = await run('delete-by-body', { groupId: 'g1', thingRef: 't8', reason: 'duplicate' });
    expect(JSON.parse(upstream.calls('POST /api/groups/g1/things.delete')[0]!.body)).to.deep.equal({ ref: 't8', reason: 'duplicate' });
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 't8', deleted: true, reason: 'duplicate' }]);
  });

  it('a failed delete gets no id: its rows stay as the mapping gave them', async () => {
    upstream.on('DELETE /api/groups/g1/things/t404', () => ({ status: 404, body: { error: 'no such thing' } }));
    const missing = await run('delete-thing', { groupId: 'g1', thingId: 't404' });
    expect(missing.status).to.equal(200);
    expect(missing.body.success).to.equal(false);
    expect(missing.body.data).to.deep.equal([{ error: 'no such thing' }]);

    upstream.on('POST /api/groups/g1/things.delete', () => ({ body: { ok: false, error: 'not_found' } }));
    const refused = await run('delete-by-body', { groupId: 'g1', thingRef: 't9' });
    expect(refused.body.success).to.equal(false);
    expect(refused.body.data).to.deep.equal([]);
  });
});
