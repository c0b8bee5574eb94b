import { expect } from 'chai';
import path from 'node:path';
import { loadConfig } from '../../../engine/config/config.ts';
import { configProblem } from '../../helpers/config-problem.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { Upstream } from '../../helpers/upstream.ts';

const BUNDLED = path.join(ROOT, 'definitions');
const PUBLIC = 'https://gateway.example.test';

describe('APP_AUTH_URLS: the OAuth URLs of an app sent to a local stand-in without editing its YAML', function () {
  this.timeout(30_000);

  describe('the setting', () => {
    it('maps app slugs to the auth URLs that replace theirs (a trailing slash dropped); unset maps none', () => {
      expect(loadConfig({}, '/srv/gw').appAuthUrls).to.deep.equal({});
      const config = loadConfig({ APP_AUTH_URLS: '{"xero":{"authorizeUrl":"http://127.0.0.1:4031/authorize","tokenUrl":"http://127.0.0.1:4031/token/"}}' }, '/srv/gw');
      expect(config.appAuthUrls).to.deep.equal({ xero: { authorizeUrl: 'http://127.0.0.1:4031/authorize', tokenUrl: 'http://127.0.0.1:4031/token' } });
    });

    const BAD: [string, string, string][] = [
      ['not JSON', 'xero=http://127.0.0.1', 'APP_AUTH_URLS must be a JSON object of app slug to auth URLs, e.g. {"xero":{"authorizeUrl":"http://127.0.0.1:4031/authorize","tokenUrl":"http://127.0.0.1:4031/token"}} (not valid JSON)'],
      ['a key that is no app slug', '{"Xero":{"tokenUrl":"http://127.0.0.1"}}', 'APP_AUTH_URLS names "Xero", which is not an app slug (lowercase letters and digits, words joined by single hyphens)'],
      ['a URL instead of an object', '{"xero":"http://127.0.0.1"}', 'APP_AUTH_URLS must map app "xero" to an object of authorizeUrl, tokenUrl, refreshUrl, postAuthorizationUrl (got "http://127.0.0.1")'],
      ['an unknown URL name', '{"xero":{"tokenURL":"http://127.0.0.1"}}', 'APP_AUTH_URLS names "tokenURL" for app "xero", which is not one of authorizeUrl, tokenUrl, refreshUrl, postAuthorizationUrl'],
      ['a URL with a query', '{"xero":{"tokenUrl":"http://127.0.0.1/t?x=1"}}', 'APP_AUTH_URLS must map tokenUrl of app "xero" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got "http://127.0.0.1/t?x=1")'],
      ['credentials', '{"xero":{"tokenUrl":"http://u:p@127.0.0.1"}}', 'APP_AUTH_URLS must map tokenUrl of app "xero" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got "http://u:p@127.0.0.1")'],
    ];
    for (const [what, value, message] of BAD) {
      it(`refuses ${what}, naming the setting, the app and the rule`, () => {
        expect(configProblem({ APP_AUTH_URLS: value })).to.equal(message);
      });
    }
  });

  describe('the bundled HubSpot app, authorized and refreshed against a stand-in', () => {
    const upstream = new Upstream();
    let gw: TestGateway;

    before(async () => {
      await upstream.start();
      gw = await startTestGateway({
        DEFINITIONS_DIR: BUNDLED,
        PUBLIC_BASE_URL: PUBLIC,
        APP_BASE_URLS: JSON.stringify({ hubspot: `${upstream.url}/api` }),
        APP_AUTH_URLS: JSON.stringify({ hubspot: { authorizeUrl: `${upstream.url}/oauth/authorize`, tokenUrl: `${upstream.url}/oauth/token` }, 'no-such-app': { tokenUrl: 'http://127.0.0.1:9' } }),
        EGRESS_ALLOW: '127.0.0.1/32',
      });
      await call(gw, 'PUT', '/v2/apps/hubspot/configuration', { body: { clientId: 'hub-client', clientSecret: 'hub-secret' } });
    });
    after(async () => {
      await gw.stop();
      await upstream.stop();
    });

    it('sends the browser to the stand-in, exchanges the code there, and refreshes there after a 401', async () => {
      let issued = 0;
      upstream.on('POST /oauth/token', () => ({ body: { access_token: `at-${++issued}`, refresh_token: 'rt-1', expires_in: 1800 } }));
      upstream.on('GET /api/crm/v3/objects/contacts', (req) =>
        req.headers.authorization === 'Bearer at-2' ? { body: { results: [{ id: '1', properties: { email: 'a@example.test' } }] } } : { status: 401, body: { status: 'error', message: 'expired', category: 'EXPIRED_AUTHENTICATION' } },
      );
      const started = await call(gw, 'GET', `/v2/connect/hubspot/authorize?returnUrl=${encodeURIComponent(`${PUBLIC}/connect/oauth-return`)}`);
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      const authorizationUrl = new URL(started.body.data.authorizationUrl);
      expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).to.equal(`${upstream.url}/oauth/authorize`);
      const back = await fetch(`${gw.url}/v2/connect/callback?code=c-1&state=${encodeURIComponent(authorizationUrl.searchParams.get('state')!)}`, { redirect: 'manual' });
      const connectionId = new URL(back.headers.get('location')!).searchParams.get('connectionId');
      expect(connectionId, back.headers.get('location')!).to.match(/^con_/);

      const run = await call(gw, 'POST', '/v2/universal/apps/hubspot/actions/list-contacts/run', { body: { connectionId, arguments: {} } });
      expect(run.status, JSON.stringify(run.body)).to.equal(200);
      expect(run.body.data).to.deep.equal([{ id: '1', email: 'a@example.test' }]);
      const grants = upstream.calls('POST /oauth/token').map((r) => new URLSearchParams(r.body).get('grant_type'));
      expect(grants).to.deep.equal(['authorization_code', 'refresh_token']);
    });

    it('says so once at start (warn), naming each URL, and warns about a slug no app has', () => {
      const lines = gw.logs().split('\n').filter((l) => l.includes('APP_AUTH_URLS'));
      const replaced = lines.find((l) => l.includes('replaces auth URLs of app hubspot'))!;
      expect(JSON.parse(replaced)).to.include({ level: 40 });
      expect(replaced).to.include(`tokenUrl → ${upstream.url}/oauth/token`);
      expect(lines.some((l) => l.includes('"no-such-app"') && l.includes('no app has that slug'))).to.equal(true);
    });
  });

  it('is still held to the egress policy: a 127.0.0.1 token endpoint needs EGRESS_ALLOW', async () => {
    const upstream = await new Upstream().start();
    const gw = await startTestGateway({ DEFINITIONS_DIR: BUNDLED, PUBLIC_BASE_URL: PUBLIC, APP_AUTH_URLS: JSON.stringify({ hubspot: { tokenUrl: `${upstream.url}/oauth/token` } }) });
    try {
      await call(gw, 'PUT', '/v2/apps/hubspot/configuration', { body: { clientId: 'hub-client', clientSecret: 'hub-secret' } });
      const started = await call(gw, 'GET', `/v2/connect/hubspot/authorize?returnUrl=${encodeURIComponent(`${PUBLIC}/connect/oauth-return`)}`);
      const state = new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
      const back = await fetch(`${gw.url}/v2/connect/callback?code=c-1&state=${encodeURIComponent(state)}`, { redirect: 'manual' });
      expect(new URL(back.headers.get('location')!).searchParams.get('error')).to.equal('egress_denied');
      expect(upstream.received).to.have.length(0);
    } finally {
      await gw.stop();
      await upstream.stop();
    }
  });
});
