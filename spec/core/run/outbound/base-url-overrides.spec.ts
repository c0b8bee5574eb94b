import { expect } from 'chai';
import path from 'node:path';
import { loadConfig } from '../../../../engine/config/config.ts';
import { configProblem } from '../../../helpers/config-problem.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { ROOT, runCommand } from '../../../helpers/process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';
import { Upstream } from '../../../helpers/upstream.ts';

const BUNDLED = path.join(ROOT, 'definitions');

describe('APP_BASE_URLS: an app sent to a local stand-in without editing its YAML', function () {
  this.timeout(30_000);

  describe('the setting', () => {
    it('maps app slugs to base URLs (a trailing slash dropped); unset maps none', () => {
      expect(loadConfig({}, '/srv/gw').appBaseUrls).to.deep.equal({});
      const config = loadConfig({ APP_BASE_URLS: '{"github":"http://127.0.0.1:4010/","stripe":"https://stripe-mock.internal:12111/v1"}' }, '/srv/gw');
      expect(config.appBaseUrls).to.deep.equal({ github: 'http://127.0.0.1:4010', stripe: 'https://stripe-mock.internal:12111/v1' });
    });

    it('takes {{placeholders}} in the path (filled per segment at run time, as in api.yaml), never before it', () => {
      const config = loadConfig({ APP_BASE_URLS: '{"twilio":"http://127.0.0.1:4021/2010-04-01/Accounts/{{accountSid}}"}' }, '/srv/gw');
      expect(config.appBaseUrls).to.deep.equal({ twilio: 'http://127.0.0.1:4021/2010-04-01/Accounts/{{accountSid}}' });
      for (const value of ['http://{{host}}:4021/x', 'http://127.0.0.1:{{port}}/x', 'http://127.0.0.1/{{a}/x', 'http://127.0.0.1/{x}']) {
        expect(() => loadConfig({ APP_BASE_URLS: JSON.stringify({ twilio: value }) }, '/srv/gw'), value).to.throw(/before its path/);
      }
    });

    const BAD: [string, string, string][] = [
      ['not JSON', 'github=http://127.0.0.1:4010', 'APP_BASE_URLS must be a JSON object of app slug to base URL, e.g. {"github":"http://127.0.0.1:4010"} (not valid JSON)'],
      ['not an object', '["http://127.0.0.1:4010"]', 'APP_BASE_URLS must be a JSON object of app slug to base URL, e.g. {"github":"http://127.0.0.1:4010"} (got an array)'],
      ['a key that is no app slug', '{"GitHub":"http://127.0.0.1:4010"}', 'APP_BASE_URLS names "GitHub", which is not an app slug (lowercase letters and digits, words joined by single hyphens)'],
      ['a URL with a query', '{"github":"http://127.0.0.1:4010/?x=1"}', 'APP_BASE_URLS must map app "github" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got "http://127.0.0.1:4010/?x=1")'],
      ['another scheme', '{"github":"ftp://127.0.0.1"}', 'APP_BASE_URLS must map app "github" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got "ftp://127.0.0.1")'],
      ['credentials', '{"github":"http://u:p@127.0.0.1"}', 'APP_BASE_URLS must map app "github" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got "http://u:p@127.0.0.1")'],
      ['a placeholder', '{"github":"https://{{org}}.example.test"}', 'APP_BASE_URLS must map app "github" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got "https://{{org}}.example.test")'],
      ['a value that is not a string', '{"github":4010}', 'APP_BASE_URLS must map app "github" to an http:// or https:// URL without query, fragment, credentials or {{placeholders}} before its path (got 4010)'],
    ];
    for (const [what, value, message] of BAD) {
      it(`refuses ${what}, naming the setting, the app and the rule`, () => {
        expect(configProblem({ APP_BASE_URLS: value })).to.equal(message);
      });
    }

    it('makes `npm start` exit 1 with that line', async () => {
      const { dir, cleanup } = await tempDir();
      try {
        const result = await runCommand(['--import', 'tsx', 'engine/main.ts'], { APP_BASE_URLS: '{"github":"ftp://127.0.0.1"}', DATA_DIR: dir });
        expect(result.code).to.equal(1);
        expect(result.stderr.trim()).to.equal(`config error: ${BAD[4]![2]}`);
      } finally {
        await cleanup();
      }
    });
  });

  describe('a run of the bundled GitHub app', () => {
    const upstream = new Upstream();
    let gw: TestGateway;
    let connectionId: string;

    before(async () => {
      await upstream.start();
      gw = await startTestGateway({
        DEFINITIONS_DIR: BUNDLED,
        APP_BASE_URLS: JSON.stringify({ github: `${upstream.url}/github-stand-in`, 'no-such-app': 'http://127.0.0.1:9' }),
        EGRESS_ALLOW: '127.0.0.1/32',
      });
      // The token auth's verification (GET /user) goes to the stand-in too.
      upstream.on('GET /github-stand-in/user', () => ({ body: { login: 'octo' } }));
      connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'github', authId: 'personal-access-token', credentials: { token: 'ghp_test' } } })).body.data.id;
    });
    after(async () => {
      await gw.stop();
      await upstream.stop();
    });

    it('goes to the stand-in, with the path, query, headers and auth the YAML says', async () => {
      upstream.on('GET /github-stand-in/repos/octo/hello/labels', () => ({ body: [{ id: 1, name: 'bug', color: 'f00', description: null, default: true }] }));
      const { status, body } = await call(gw, 'POST', '/v2/universal/apps/github/actions/list-labels/run', { body: { connectionId, arguments: { owner: 'octo', repo: 'hello' } } });
      expect(status).to.equal(200);
      expect(body.success).to.equal(true);
      const [sent] = upstream.calls('GET /github-stand-in/repos/octo/hello/labels');
      expect(sent!.headers.authorization).to.equal('Bearer ghp_test');
      expect(sent!.headers['x-github-api-version']).to.equal('2026-03-10');
    });

    it('says so once at start (warn), and warns about a slug no app has', () => {
      const lines = gw.logs().split('\n').filter((l) => l.includes('APP_BASE_URLS'));
      expect(lines.filter((l) => l.includes('github'))).to.have.length.greaterThan(0);
      const overridden = lines.find((l) => l.includes('replaces the base URL'))!;
      expect(JSON.parse(overridden)).to.include({ level: 40 });
      expect(overridden).to.include(`github → ${upstream.url}/github-stand-in`);
      expect(lines.some((l) => l.includes('"no-such-app"') && l.includes('no app has that slug'))).to.equal(true);
    });
  });

  it('is still held to the egress policy: a 127.0.0.1 stand-in needs EGRESS_ALLOW', async () => {
    const upstream = await new Upstream().start();
    const gw = await startTestGateway({ DEFINITIONS_DIR: BUNDLED, APP_BASE_URLS: JSON.stringify({ github: upstream.url }) });
    try {
      // The token auth's verification request is the first call, and is held to it as a run's call is.
      const created = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'github', authId: 'personal-access-token', credentials: { token: 'ghp_test' } } });
      expect(created.status).to.equal(403);
      expect(created.body.error.code).to.equal('EGRESS_DENIED');
      expect(await gw.gateway.services.store.connections.find({ appSlug: 'github' }, { limit: 1 }), 'nothing stored').to.have.length(0);
      // A run's own call (through an auth without a verification: tokens imported for the OAuth auth).
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'github', authId: 'oauth2', credentials: { accessToken: 'gho_test' } } })).body.data.id;
      const { status, body } = await call(gw, 'POST', '/v2/universal/apps/github/actions/list-labels/run', { body: { connectionId, arguments: { owner: 'octo', repo: 'hello' } } });
      expect(status).to.equal(403);
      expect(body.error.code).to.equal('EGRESS_DENIED');
      expect(upstream.received).to.have.length(0);
    } finally {
      await gw.stop();
      await upstream.stop();
    }
  });
});
