import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { Upstream, type ReceivedRequest } from '../../helpers/upstream.ts';

const BUNDLED = path.join(ROOT, 'definitions');
const PUBLIC = 'https://gateway.example.test';
const RETURN = `${PUBLIC}/connect/oauth-return`;
const BASIC = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const DEMO = { id: 'c1', tenantId: '45e4708e-d862-4111-ab3a-dd8cd03913e1', tenantType: 'ORGANISATION', tenantName: 'Demo Company (UK)' };
const MAPLE = { id: 'c2', tenantId: '7c1bd4b2-3bb6-4c4f-a1a6-2f1e0d9c8b7a', tenantType: 'ORGANISATION', tenantName: 'Maple Florists Ltd' };

/**
 * The bundled Xero and QuickBooks Online apps, whole, through a gateway whose
 * OAuth URLs (APP_AUTH_URLS) and base URLs (APP_BASE_URLS) point at local
 * stand-ins that behave like the providers: the client only as HTTP Basic,
 * the company in the redirect (QuickBooks' realmId), the organisations from
 * GET /connections (Xero), pages, an expired token. What the offline cases
 * cannot show: the authorization itself, and the connection it leaves.
 */
describe('bundled Xero and QuickBooks Online apps against stand-ins of the providers', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;

  before(async () => {
    await upstream.start();
    gw = await startTestGateway({
      DEFINITIONS_DIR: BUNDLED,
      PUBLIC_BASE_URL: PUBLIC,
      EGRESS_ALLOW: '127.0.0.1/32',
      APP_BASE_URLS: JSON.stringify({ xero: `${upstream.url}/xero/api.xro/2.0`, quickbooks: `${upstream.url}/qbo/v3/company/{{realmId}}` }),
      APP_AUTH_URLS: JSON.stringify({
        xero: { authorizeUrl: `${upstream.url}/xero/authorize`, tokenUrl: `${upstream.url}/xero/token`, postAuthorizationUrl: `${upstream.url}/xero/connections` },
        quickbooks: { authorizeUrl: `${upstream.url}/qbo/authorize`, tokenUrl: `${upstream.url}/qbo/token` },
      }),
    });
    await call(gw, 'PUT', '/v2/apps/xero/configuration', { body: { clientId: 'xero-client', clientSecret: 'xero-secret' } });
    await call(gw, 'PUT', '/v2/apps/quickbooks/configuration', { body: { clientId: 'qbo-client', clientSecret: 'qbo-secret' } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
  });
  afterEach(() => upstream.reset());

  /** A token endpoint that takes the client only as Basic (else invalid_client), the code once, and the latest refresh token. */
  function tokenEndpoint(route: string, basic: string): void {
    let issued = 0;
    let refresh = '';
    upstream.on(route, (req: ReceivedRequest) => {
      const form = new URLSearchParams(req.body);
      if (req.headers.authorization !== basic || form.has('client_secret')) return { status: 401, body: { error: 'invalid_client' } };
      const grant = form.get('grant_type');
      if ((grant === 'authorization_code' && form.get('code') === 'code-1') || (grant === 'refresh_token' && form.get('refresh_token') === refresh)) {
        refresh = `rt-${++issued}`;
        return { body: { access_token: `at-${issued}`, refresh_token: refresh, expires_in: 1800, token_type: 'Bearer' } };
      }
      return { status: 400, body: { error: 'invalid_grant' } };
    });
  }

  async function authorize(app: string, extra: Record<string, string> = {}): Promise<URLSearchParams> {
    const started = await call(gw, 'GET', `/v2/connect/${app}/authorize?returnUrl=${encodeURIComponent(RETURN)}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const url = new URL(started.body.data.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).to.equal(`${upstream.url}/${app === 'xero' ? 'xero' : 'qbo'}/authorize`);
    const back = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ code: 'code-1', state: url.searchParams.get('state')!, ...extra })}`, { redirect: 'manual' });
    return new URL(back.headers.get('location')!).searchParams;
  }

  it('Xero: the organisation chosen among those GET /connections names, three pages, an expired token refreshed with Basic', async () => {
    tokenEndpoint('POST /xero/token', BASIC('xero-client', 'xero-secret'));
    upstream.on('GET /xero/connections', () => ({ body: [DEMO, MAPLE, { ...DEMO, id: 'c3', tenantType: 'PRACTICE' }] }));
    const choiceId = (await authorize('xero')).get('choiceId')!;
    expect(choiceId).to.match(/^cho_/);
    const options = (await call(gw, 'GET', `/v2/connect/choices/${choiceId}`)).body.data.options;
    expect(options.map((o: { label: string }) => o.label)).to.deep.equal([DEMO.tenantName, MAPLE.tenantName]);
    const connectionId = (await call(gw, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '2' } })).body.data.connectionId;

    // at-1 has expired by the time the first page is asked: a 401, a refresh with Basic, then the pages with at-2.
    upstream.on('GET /xero/api.xro/2.0/Contacts', (req) => {
      if (req.headers.authorization !== 'Bearer at-2') return { status: 401, body: { Title: 'Unauthorized', Status: 401, Detail: 'TokenExpired: token expired' } };
      if (req.headers['xero-tenant-id'] !== MAPLE.tenantId) return { status: 403, body: { Title: 'Forbidden', Detail: 'AuthenticationUnsuccessful' } };
      const page = Number(req.query.get('page'));
      return { body: { pagination: { page, pageSize: 100, pageCount: 3, itemCount: 3 }, Contacts: [{ ContactID: `00000000-0000-4000-8000-00000000000${page}`, Name: `Contact ${page}` }] } };
    });
    const names: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 4; i++) {
      const run = await call(gw, 'POST', '/v2/universal/apps/xero/actions/list-contacts/run', { body: { connectionId, arguments: cursor ? { cursor } : {} } });
      expect(run.status, JSON.stringify(run.body)).to.equal(200);
      names.push(...run.body.data.map((c: { name: string }) => c.name));
      cursor = run.body.meta.cursor;
      if (!cursor) break;
    }
    expect(names).to.deep.equal(['Contact 1', 'Contact 2', 'Contact 3']);
    expect(upstream.calls('GET /xero/api.xro/2.0/Contacts').map((r) => r.query.get('page'))).to.deep.equal(['1', '1', '2', '3']);
    expect(upstream.calls('POST /xero/token').map((r) => new URLSearchParams(r.body).get('grant_type'))).to.deep.equal(['authorization_code', 'refresh_token']);
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data).to.deep.include({ status: 'active', metadata: { tenantId: MAPLE.tenantId, tenantName: MAPLE.tenantName } });
  });

  it("QuickBooks Online: the company from the redirect, an escaped search, and its next page's query", async () => {
    tokenEndpoint('POST /qbo/token', BASIC('qbo-client', 'qbo-secret'));
    const outcome = await authorize('quickbooks', { realmId: '9130357766900456' });
    const connectionId = outcome.get('connectionId')!;
    expect(connectionId, outcome.toString()).to.match(/^con_/);
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.metadata).to.deep.equal({ realmId: '9130357766900456' });

    upstream.on('GET /qbo/v3/company/9130357766900456/query', (req) => {
      const start = Number(/STARTPOSITION (\d+)/.exec(req.query.get('query')!)![1]);
      const rows = start === 1 ? [{ Id: '58', DisplayName: "O'Brien \\ Sons Ltd" }, { Id: '59', DisplayName: "O'Brien \\ Sons West" }] : [{ Id: '60', DisplayName: "O'Brien \\ Sons East" }];
      return { body: { QueryResponse: { Customer: rows, startPosition: start, maxResults: rows.length } } };
    });
    const first = await call(gw, 'POST', '/v2/universal/apps/quickbooks/actions/search-customers/run', { body: { connectionId, arguments: { displayName: "O'Brien \\ Sons", pageSize: 2 } } });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const [sent] = upstream.calls('GET /qbo/v3/company/9130357766900456/query');
    expect(sent!.query.get('query')).to.equal("select * from Customer WHERE DisplayName LIKE '%O\\'Brien \\\\ Sons%' ORDERBY DisplayName STARTPOSITION 1 MAXRESULTS 2");
    expect(sent!.query.get('minorversion')).to.equal('75');
    expect(sent!.headers.authorization).to.equal('Bearer at-1');
    const second = await call(gw, 'POST', '/v2/universal/apps/quickbooks/actions/search-customers/run', { body: { connectionId, arguments: { cursor: first.body.meta.cursor } } });
    expect(second.body.data.map((c: { id: string }) => c.id)).to.deep.equal(['60']);
    expect(second.body.meta).not.to.have.property('cursor');
  });
});
