import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/lookups');

/**
 * Lookup lists help the builder (the options endpoint pages and searches
 * with the lookup action) and do not refuse a run's value, unless the list
 * says strict: true. Fixed lists stay strict. Everything goes through the
 * real gateway to a 127.0.0.1 upstream.
 */
describe('Lookup lists: options help, runs do not look up (unless strict)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (action: string, args: Record<string, unknown>) => documentedCall(gw, 'POST', `/v2/universal/apps/chat/actions/${action}/run`, { body: { connectionId, arguments: args } });
  const options = (key: string, body: Record<string, unknown>) =>
    documentedCall(gw, 'POST', `/v2/universal/apps/chat/actions/post-message/arguments/${key}/options`, { body: { connectionId, ...body } });

  const channelPages: Record<string, { channels: { id: string; name: string }[]; next?: string }> = {
    '': { channels: [{ id: 'C1', name: 'general' }, { id: 'C2', name: 'random' }], next: 'page-2' },
    'page-2': { channels: [{ id: 'C3', name: 'deploys' }, { id: 'C4', name: 'Design' }] },
  };
  const serveChannels = () => upstream.on('GET /api/channels', (req) => ({ body: channelPages[req.query.get('cursor') ?? ''] ?? { channels: [] } }));

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'chat', credentials: { apiKey: 'chat-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  describe('a run', () => {
    it('sends exactly one upstream request and a Lookup value that is on no page (a DM id) as given', async () => {
      serveChannels();
      upstream.on('POST /api/messages', (req) => ({ status: 201, body: JSON.parse(req.body) }));
      const { status, body } = await run('post-message', { channel: 'D0123', mention: 'U9', text: 'hi' });
      expect(status).to.equal(200);
      expect(body).to.deep.include({ success: true, data: [{ channel: 'D0123', mention: 'U9', text: 'hi' }] });
      expect(upstream.received.map((r) => `${r.method} ${r.path}`)).to.deep.equal(['POST /api/messages']);
    });

    it('still type-checks a Lookup value and the other arguments, without looking anything up', async () => {
      serveChannels();
      const { status, body } = await run('post-message', { channel: { id: 'C1' }, text: 'x'.repeat(21) });
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('VALIDATION_ERROR');
      expect(body.error.details.problems).to.deep.equal([
        { field: 'channel', rule: 'type', message: 'must be one option\'s value: a string, number or boolean (got {"id":"C1"})' },
        { field: 'text', rule: 'maxLength', message: 'must be at most 20 characters (got 21)' },
      ]);
      expect(upstream.received).to.have.length(0);
    });

    it('a Fixed list still refuses a value that is not among its options', async () => {
      const { status, body } = await run('post-message', { channel: 'C1', priority: 'urgent', text: 'hi' });
      expect(status).to.equal(400);
      expect(body.error.details.problems).to.deep.equal([{ field: 'priority', rule: 'option', message: 'must be one of "low", "high" (got "urgent")' }]);
      expect(upstream.received).to.have.length(0);
    });

    it('a strict Lookup still checks against the first page, with one lookup call, and says so when it refuses', async () => {
      serveChannels();
      upstream.on('POST /api/messages', (req) => ({ status: 201, body: JSON.parse(req.body) }));
      const refused = await run('post-strict', { channel: 'C3', text: 'hi' });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.details.problems).to.deep.equal([
        { field: 'channel', rule: 'lookup', message: 'is not among the 2 options on the first page of list-channels (strict lookup) (got "C3")' },
      ]);
      expect(upstream.received.map((r) => `${r.method} ${r.path}`)).to.deep.equal(['GET /api/channels']);

      upstream.received.length = 0;
      const posted = await run('post-strict', { channel: 'C2', text: 'hi' });
      expect(posted.body).to.deep.include({ success: true, data: [{ channel: 'C2', text: 'hi' }] });
      expect(upstream.received.map((r) => `${r.method} ${r.path}`)).to.deep.equal(['GET /api/channels', 'POST /api/messages']);
    });
  });

  it('describeAction shows a Lookup list\'s strict and searchArgument as written', async () => {
    const strict = await documentedCall(gw, 'GET', '/v2/universal/apps/chat/actions/post-strict');
    expect(strict.body.data[0].arguments[0].list).to.deep.include({ type: 'Lookup', action: 'list-channels', strict: true });
    const searching = await documentedCall(gw, 'GET', '/v2/universal/apps/chat/actions/post-message');
    expect(searching.body.data[0].arguments[0].list).to.deep.equal({
      type: 'Lookup',
      action: 'list-channels',
      valueKey: 'id',
      labelKey: 'name',
      searchArgument: 'query',
      optionsPath: '/v2/universal/apps/chat/actions/post-message/arguments/channel/options',
    });
  });

  describe('the options endpoint', () => {
    it('answers the first page with meta.cursor, and the next page for that cursor without one', async () => {
      serveChannels();
      const first = await options('channel', {});
      expect(first.status).to.equal(200);
      expect(first.body.data).to.deep.equal([
        { value: 'C1', label: 'general' },
        { value: 'C2', label: 'random' },
      ]);
      expect(first.body.meta).to.deep.include({ count: 2, cursor: 'page-2' });
      expect(first.body.meta).not.to.have.property('searched');

      const second = await options('channel', { cursor: first.body.meta.cursor });
      expect(second.body.data).to.deep.equal([
        { value: 'C3', label: 'deploys' },
        { value: 'C4', label: 'Design' },
      ]);
      expect(second.body.meta).not.to.have.property('cursor');
      expect(upstream.calls('GET /api/channels').map((r) => r.query.get('cursor'))).to.deep.equal([null, 'page-2']);
    });

    it('passes search to the lookup action as its searchArgument: the app searched', async () => {
      upstream.on('GET /api/channels', () => ({ body: { channels: [{ id: 'C4', name: 'Design' }] } }));
      const { status, body } = await options('channel', { search: 'des' });
      expect(status).to.equal(200);
      expect(body.data).to.deep.equal([{ value: 'C4', label: 'Design' }]);
      expect(body.meta).to.deep.include({ count: 1, searched: 'app' });
      const [sent] = upstream.calls('GET /api/channels');
      expect(sent!.query.get('query')).to.equal('des');
    });

    it('without a searchArgument filters the page it got by label or value (case-insensitive) and says it searched one page', async () => {
      upstream.on('GET /api/users', () => ({
        body: { users: [{ id: 'U1', name: 'Ada Lovelace' }, { id: 'U2', name: 'Grace' }, { id: 'UAD', name: 'Linus' }], next: 'users-2' },
      }));
      const { status, body } = await options('mention', { search: 'aD' });
      expect(status).to.equal(200);
      expect(body.data).to.deep.equal([
        { value: 'U1', label: 'Ada Lovelace' },
        { value: 'UAD', label: 'Linus' },
      ]);
      expect(body.meta).to.deep.include({ count: 2, searched: 'page', cursor: 'users-2' });
      const [sent] = upstream.calls('GET /api/users');
      expect([...sent!.query.keys()]).to.deep.equal([]);
    });

    it('a Fixed list filters all its options', async () => {
      const { body } = await options('priority', { search: 'HI' });
      expect(body.data).to.deep.equal([{ value: 'high', label: 'high' }]);
      expect(body.meta).to.deep.include({ count: 1, searched: 'all' });
    });

    it('refuses an overlong or non-string search or cursor with VALIDATION_ERROR naming the field, before calling the app', async () => {
      serveChannels();
      const long = await options('channel', { search: 'x'.repeat(201), cursor: 'c'.repeat(1001) });
      expect(long.status).to.equal(400);
      expect(long.body.error.code).to.equal('VALIDATION_ERROR');
      expect(long.body.error.details.problems).to.deep.equal([
        { field: 'search', rule: 'maxLength', message: 'must be at most 200 characters (got 201)' },
        { field: 'cursor', rule: 'maxLength', message: 'must be at most 1000 characters (got 1001)' },
      ]);
      const typed = await options('channel', { search: 5, cursor: ['a'] });
      expect(typed.status).to.equal(400);
      expect(typed.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.deep.equal(['search type', 'cursor type']);
      expect(upstream.received).to.have.length(0);
    });

    it('refuses a cursor for a list that has one page, before calling the app', async () => {
      const { status, body } = await options('priority', { cursor: 'page-2' });
      expect(status).to.equal(400);
      expect(body.error.details.problems).to.deep.equal([{ field: 'cursor', rule: 'unknown', message: 'a Fixed list has one page: it takes no cursor' }]);
      const teams = await options('team', { cursor: 'page-2' });
      expect(teams.status).to.equal(400);
      expect(teams.body.error.details.problems).to.deep.equal([{ field: 'cursor', rule: 'unknown', message: 'lookup action list-teams answers one page: it takes no cursor' }]);
      expect(upstream.received).to.have.length(0);
    });
  });
});
