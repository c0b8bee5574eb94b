import { expect } from 'chai';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/pagination');
const API_KEY = 'pager-secret-key';
const REFUSED = 'cursor: must be the meta.cursor of the previous page of this action, sent unchanged';

/** One golden run per pagination kind, end to end: the caller passes meta.cursor back unchanged and the engine sends the next page's request. */
describe('Pagination: every kind, end to end', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  const other = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (action: string, args: Record<string, unknown> = {}, connection = connectionId) =>
    documentedCall(gw, 'POST', `/v2/universal/apps/pager/actions/${action}/run`, { body: { connectionId: connection, arguments: args } });
  const rawQuery = (action: string) => upstream.received.at(-1)!.query.toString() + (action ? '' : '');

  before(async () => {
    await upstream.start();
    await other.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'pager', credentials: { apiKey: API_KEY } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await other.stop();
    await cleanupDefs();
  });
  afterEach(() => {
    upstream.reset();
    other.reset();
  });

  it("Cursor in a query parameter (the API's pagination): the mapping's meta.cursor goes back as ?page_cursor=", async () => {
    upstream.on('GET /api/items', (r) => ({ body: r.query.get('page_cursor') === 'c2' ? { items: [{ id: 3 }], next: null } : { items: [{ id: 1 }, { id: 2 }], next: 'c2' } }));
    const first = await run('list-cursor');
    expect(first.body.data).to.deep.equal([{ id: 1 }, { id: 2 }]);
    expect(first.body.meta.cursor).to.equal('c2');
    const second = await run('list-cursor', { cursor: first.body.meta.cursor });
    expect(upstream.calls('GET /api/items')[1]!.query.get('page_cursor')).to.equal('c2');
    expect(second.body.data).to.deep.equal([{ id: 3 }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it('Cursor in the body of a POST search (Notion start_cursor / next_cursor): the token read by `next` goes back in the body', async () => {
    upstream.on('POST /api/search', (r) => {
      const sent = JSON.parse(r.body) as { start_cursor?: string };
      return { body: sent.start_cursor === 'fe2cc560' ? { results: [{ id: 'b' }], has_more: false, next_cursor: null } : { results: [{ id: 'a' }], has_more: true, next_cursor: 'fe2cc560' } };
    });
    const first = await run('search-pages', { query: 'roadmap' });
    expect(first.body.meta.cursor, "the engine's next, not the mapping's meta.cursor").to.equal('fe2cc560');
    const second = await run('search-pages', { query: 'roadmap', cursor: 'fe2cc560' });
    expect(JSON.parse(upstream.calls('POST /api/search')[1]!.body)).to.deep.equal({ query: 'roadmap', start_cursor: 'fe2cc560' });
    expect(second.body.data).to.deep.equal([{ id: 'b' }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it('NextUrl from the Link header (GitHub-like): the engine requests exactly the rel="next" URL, with auth; the last page has no cursor', async () => {
    const next = `${upstream.url}/api/repositories/42/issues?state=open&per_page=2&page=2`;
    upstream.on('GET /api/issues', () => ({
      headers: { link: `<${next}>; rel="next", <${upstream.url}/api/repositories/42/issues?state=open&per_page=2&page=5>; rel="last"` },
      body: [{ id: 1 }, { id: 2 }],
    }));
    upstream.on('GET /api/repositories/42/issues', () => ({ headers: { link: `<${upstream.url}/api/repositories/42/issues?page=1>; rel="prev first"` }, body: [{ id: 3 }] }));
    const first = await run('list-link', { state: 'open' });
    expect(first.body.data).to.deep.equal([{ id: 1 }, { id: 2 }]);
    expect(first.body.meta.cursor).to.be.a('string');
    expect(first.body.meta.cursor).not.to.equal('ignored');
    const second = await run('list-link', { state: 'open', cursor: first.body.meta.cursor });
    const [sent] = upstream.calls('GET /api/repositories/42/issues');
    expect(sent!.query.toString(), 'the URL carries the query; the action query is not added again').to.equal('state=open&per_page=2&page=2');
    expect(sent!.headers['x-api-key']).to.equal(API_KEY);
    expect(second.body.data).to.deep.equal([{ id: 3 }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it('NextUrl from the body: an absolute @odata.nextLink', async () => {
    upstream.on('GET /api/people', (r) =>
      r.query.get('$skiptoken') === 'X2' ? { body: { value: [{ id: 'p2' }] } } : { body: { value: [{ id: 'p1' }], '@odata.nextLink': `${upstream.url}/api/people?$skiptoken=X2` } },
    );
    const first = await run('list-odata');
    const second = await run('list-odata', { cursor: first.body.meta.cursor });
    expect(upstream.calls('GET /api/people')[1]!.query.get('$skiptoken')).to.equal('X2');
    expect(second.body.data).to.deep.equal([{ id: 'p2' }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it("NextUrl from the body: a relative Salesforce nextRecordsUrl is resolved against the API's origin", async () => {
    upstream.on('GET /api/query', () => ({ body: { records: [{ Id: '001' }], done: false, nextRecordsUrl: '/api/query/01gD0000002HU6KIAW-2000' } }));
    upstream.on('GET /api/query/01gD0000002HU6KIAW-2000', () => ({ body: { records: [{ Id: '002' }], done: true } }));
    const first = await run('list-records', { q: 'SELECT Id FROM Account' });
    const second = await run('list-records', { q: 'SELECT Id FROM Account', cursor: first.body.meta.cursor });
    const [sent] = upstream.calls('GET /api/query/01gD0000002HU6KIAW-2000');
    expect(sent!.query.toString()).to.equal('');
    expect(second.body.data).to.deep.equal([{ Id: '002' }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it('Offset with limit and total: offset + limit until a short page, or the total', async () => {
    const contacts = [1, 2, 3, 4, 5].map((id) => ({ id }));
    upstream.on('GET /api/contacts', (r) => {
      const offset = Number(r.query.get('offset') ?? 0);
      return { body: { contacts: contacts.slice(offset, offset + Number(r.query.get('limit'))), total: contacts.length } };
    });
    const first = await run('list-offset');
    expect(upstream.received[0]!.query.toString()).to.equal('limit=2');
    const second = await run('list-offset', { cursor: first.body.meta.cursor });
    expect(rawQuery('')).to.equal('limit=2&offset=2');
    const third = await run('list-offset', { cursor: second.body.meta.cursor });
    expect(rawQuery('')).to.equal('limit=2&offset=4');
    expect(third.body.data).to.deep.equal([{ id: 5 }]);
    expect(third.body.meta, 'a short page is the last').not.to.have.property('cursor');
    const exact = await run('list-offset', { limit: 1, cursor: undefined });
    expect(exact.body.meta.cursor).to.be.a('string');
    contacts.length = 4;
    const atTotal = await run('list-offset', { cursor: second.body.meta.cursor });
    expect(atTotal.body.data).to.have.length(0);
    upstream.on('GET /api/contacts', () => ({ body: { contacts: [{ id: 3 }, { id: 4 }], total: 4 } }));
    const full = await run('list-offset', { cursor: first.body.meta.cursor });
    expect(full.body.meta, 'offset 2 + limit 2 reaches the total of 4').not.to.have.property('cursor');
  });

  it('Offset in the body of a POST search with startAt/maxResults until isLast (Jira)', async () => {
    upstream.on('POST /api/jql', (r) => {
      const { startAt = 0 } = JSON.parse(r.body) as { startAt?: number };
      return { body: { issues: [{ key: `P-${startAt + 1}` }, { key: `P-${startAt + 2}` }], isLast: startAt >= 2 } };
    });
    const first = await run('search-jira', { jql: 'project = P' });
    expect(JSON.parse(upstream.received[0]!.body)).to.deep.equal({ jql: 'project = P', maxResults: 2 });
    const second = await run('search-jira', { jql: 'project = P', cursor: first.body.meta.cursor });
    expect(JSON.parse(upstream.received[1]!.body)).to.deep.equal({ jql: 'project = P', maxResults: 2, startAt: 2 });
    expect(second.body.data).to.deep.equal([{ key: 'P-3' }, { key: 'P-4' }]);
    expect(second.body.meta, 'isLast').not.to.have.property('cursor');
  });

  it('Page with page/per_page until a short page', async () => {
    upstream.on('GET /api/repos', (r) => ({ body: r.query.get('page') === '2' ? [{ id: 3 }] : [{ id: 1 }, { id: 2 }] }));
    const first = await run('list-page');
    expect(upstream.received[0]!.query.toString()).to.equal('per_page=2');
    const second = await run('list-page', { cursor: first.body.meta.cursor });
    expect(rawQuery('')).to.equal('per_page=2&page=2');
    expect(second.body.data).to.deep.equal([{ id: 3 }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it("Page from GitLab's X-Next-Page header, none when it is empty", async () => {
    upstream.on('GET /api/projects', (r) => ({ headers: { 'x-next-page': r.query.get('page') === '7' ? '' : '7' }, body: [{ id: 1 }] }));
    const first = await run('list-gitlab');
    const second = await run('list-gitlab', { cursor: first.body.meta.cursor });
    expect(upstream.received[1]!.query.get('page')).to.equal('7');
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it("Cursor whose next page is another request (Dropbox's list_folder/continue): the token alone, to nextRequest's path", async () => {
    upstream.on('POST /api/files/list_folder', () => ({ body: { entries: [{ name: 'a.txt' }], cursor: 'ZtkX9_EHj3x7PMkVuFIhwKYXEpwpLwyxp9vMKomUhllil9q7eWiAu', has_more: true } }));
    upstream.on('POST /api/files/list_folder/continue', (r) => ({ body: { entries: [{ name: 'b.txt' }], cursor: JSON.parse(r.body).cursor, has_more: false } }));
    const first = await run('list-folder', { path: '/Homework/math', recursive: true });
    expect(JSON.parse(upstream.received[0]!.body)).to.deep.equal({ path: '/Homework/math', recursive: true });
    expect(first.body.meta.cursor).to.equal('ZtkX9_EHj3x7PMkVuFIhwKYXEpwpLwyxp9vMKomUhllil9q7eWiAu');
    const second = await run('list-folder', { path: '/Homework/math', recursive: true, cursor: first.body.meta.cursor });
    const [sent] = upstream.calls('POST /api/files/list_folder/continue');
    expect(JSON.parse(sent!.body), 'only the cursor: the continue call refuses any other field').to.deep.equal({ cursor: 'ZtkX9_EHj3x7PMkVuFIhwKYXEpwpLwyxp9vMKomUhllil9q7eWiAu' });
    expect(sent!.headers['content-type']).to.equal('application/json');
    expect(sent!.headers['x-api-key'], 'the auth is applied to it').to.equal(API_KEY);
    expect(second.body.data).to.deep.equal([{ name: 'b.txt' }]);
    expect(second.body.meta.action.body, 'meta.action shows what was sent').to.deep.equal({ cursor: 'ZtkX9_EHj3x7PMkVuFIhwKYXEpwpLwyxp9vMKomUhllil9q7eWiAu' });
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it('Page with sendFirstPage (Xero answers everything unpaged without ?page): the first request asks for page 1', async () => {
    upstream.on('GET /api/invoices', (r) => ({ body: { invoices: r.query.get('page') === '1' ? Array.from({ length: 100 }, (_, i) => ({ id: i })) : [{ id: 100 }] } }));
    const first = await run('list-unpaged', { status: 'PAID' });
    expect(rawQuery(''), 'page=1 on the first request').to.equal('status=PAID&page=1');
    expect(first.body.data).to.have.length(100);
    const second = await run('list-unpaged', { status: 'PAID', cursor: first.body.meta.cursor });
    expect(rawQuery('')).to.equal('status=PAID&page=2');
    expect(second.body.data).to.deep.equal([{ id: 100 }]);
    expect(second.body.meta).not.to.have.property('cursor');
  });

  it('only a successful page gets a cursor; a pagination expression that fails is a 502 MAPPING_ERROR located in the file', async () => {
    upstream.on('GET /api/people', () => ({ status: 500, body: { value: [], '@odata.nextLink': `${upstream.url}/api/people?$skiptoken=X2` } }));
    const failed = await run('list-odata');
    expect(failed.body.success).to.equal(false);
    expect(failed.body.meta).not.to.have.property('cursor');
    upstream.on('GET /api/broken', () => ({ body: [{ id: 1 }] }));
    const broken = await run('list-broken');
    expect(broken.status).to.equal(502);
    expect(broken.body.success).to.equal(false);
    expect(broken.body.meta.error.code).to.equal('MAPPING_ERROR');
    expect(broken.body.meta.error.message).to.match(/^pager\/versions\/1\/actions\/list-broken\.yaml:11:\d+: .*no next page here/);
    upstream.on('POST /api/search', () => ({ body: { results: [{ id: 'a' }], has_more: true, next_cursor: { nested: true } } }));
    const objectToken = await run('search-pages', { query: 'x' });
    expect(objectToken.body.meta.cursor, 'a token that is not a string is sent as JSON text').to.equal('{"nested":true}');
  });

  it("an action's pagination overrides the API's, and { type: None } takes no cursor", async () => {
    upstream.on('GET /api/issues', () => ({ body: [] }));
    const raw = await run('list-link', { cursor: '2' });
    expect(raw.status, "list-link pages by URL, not with the API's Cursor").to.equal(400);
    upstream.on('GET /api/all', () => ({ body: { items: [{ id: 1 }], next: 'n2' } }));
    const none = await run('list-none', { cursor: 'n2' });
    expect(none.status).to.equal(400);
    expect(none.body.error.code).to.equal('VALIDATION_ERROR');
    expect(none.body.error.message).to.match(/^cursor: is not an argument of action list-none/);
    expect(upstream.received).to.have.length(0);
  });

  describe('cursors a caller may not use', () => {
    async function firstOdataCursor(): Promise<string> {
      upstream.on('GET /api/people', () => ({ body: { value: [{ id: 'p1' }], '@odata.nextLink': `${upstream.url}/api/people?$skiptoken=X2` } }));
      const cursor = (await run('list-odata')).body.meta.cursor as string;
      upstream.reset();
      return cursor;
    }
    const expectRefused = (answer: { status: number; body: any }) => {
      expect(answer.status).to.equal(400);
      expect(answer.body).to.deep.equal({ success: false, error: { code: 'VALIDATION_ERROR', message: answer.body.error.message, ...(answer.body.error.details ? { details: answer.body.error.details } : {}) } });
      expect(answer.body.error.message.startsWith(REFUSED)).to.equal(true, answer.body.error.message);
      expect(upstream.received, 'nothing was sent').to.have.length(0);
    };

    it('a tampered cursor is a 400', async () => {
      const cursor = await firstOdataCursor();
      const payload = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString()) as { url: string };
      const forged = Buffer.from(JSON.stringify({ ...payload, url: `${other.url}/steal` })).toString('base64url');
      expectRefused(await run('list-odata', { cursor: `${forged}.${cursor.split('.')[1]}` }));
      expectRefused(await run('list-odata', { cursor: cursor.slice(0, -2) }));
      expectRefused(await run('list-odata', { cursor: 'not-a-cursor' }));
      expect(other.received).to.have.length(0);
    });

    it('a cursor of another action is a 400', async () => {
      expectRefused(await run('list-records', { cursor: await firstOdataCursor() }));
    });

    it('a cursor of another connection is a 400', async () => {
      const cursor = await firstOdataCursor();
      const second = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'pager', credentials: { apiKey: 'another-key' } } })).body.data.id;
      expectRefused(await run('list-odata', { cursor }, second));
    });

    it('a next URL on another host is a 400, and the other host gets nothing', async () => {
      upstream.on('GET /api/issues', () => ({ headers: { link: `<${other.url}/api/issues?page=2>; rel="next"` }, body: [{ id: 1 }] }));
      other.on('GET /api/issues', () => ({ body: [{ id: 'stolen' }] }));
      const cursor = (await run('list-link')).body.meta.cursor as string;
      upstream.reset();
      const answer = await run('list-link', { cursor });
      expectRefused(answer);
      expect(answer.body.error.message).to.include('origin');
      expect(other.received).to.have.length(0);
    });

    it('a 10 KB cursor is a 400', async () => {
      expectRefused(await run('list-odata', { cursor: 'a'.repeat(10_240) }));
    });
  });
});
