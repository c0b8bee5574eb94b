import { expect } from 'chai';
import { MockAgent } from 'undici';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';

/** GitLab's shape: gitlab.com by default, a self-managed instance at the origin the connection stores. */
const GITLAB: Record<string, string> = {
  'gitlab/app.yaml': 'id: gitlab\nslug: gitlab\nname: GitLab\npublished: 1\n',
  'gitlab/versions/1/api.yaml': [
    'baseUrl: "{{instanceUrl}}/api/v4"',
    'originVariables:',
    '  - instanceUrl',
    'auths:',
    '  - personal-access-token',
    'arguments:',
    '  - key: instanceUrl',
    '    label: GitLab address',
    '    dataType: String',
    '    default: https://gitlab.com',
    '',
  ].join('\n'),
  'gitlab/versions/1/auths/personal-access-token.yaml': [
    'type: ApiKey',
    'id: personal-access-token',
    'name: Personal access token',
    'in: Header',
    'parameterName: PRIVATE-TOKEN',
    'value: "{{token}}"',
    'arguments:',
    '  - key: token',
    '    dataType: String',
    '    required: true',
    '',
  ].join('\n'),
  'gitlab/versions/1/actions/list-projects.yaml': [
    'id: list-projects',
    'slug: list-projects',
    'name: List projects',
    'operation: list',
    'method: GET',
    'path: /projects',
    'response: \'{ "success": status = 200, "data": body }\'',
    '',
  ].join('\n'),
};

async function gitlabDefinitions(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const empty = await tempDir();
  try {
    return await definitionsFor(empty.dir, 'http://unused.example.test', GITLAB);
  } finally {
    await empty.cleanup();
  }
}

describe('whole-origin host variables: a self-managed instance at the address the connection stores', function () {
  this.timeout(30_000);

  describe('through the default egress policy (fake network: undici MockAgent)', () => {
    const network = new MockAgent();
    const seen: { origin: string; path: string; token: string | undefined }[] = [];
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    const runWith = async ({ token, instanceUrl }: { token: string; instanceUrl?: string }) => {
      const metadata = instanceUrl === undefined ? {} : { instanceUrl };
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'gitlab', credentials: { token }, metadata } })).body.data.id;
      return call(gw, 'POST', '/v2/universal/apps/gitlab/actions/list-projects/run', { body: { connectionId } });
    };

    before(async () => {
      network.disableNetConnect();
      for (const origin of ['https://gitlab.com', 'https://gitlab.example.com:8443']) {
        network
          .get(origin)
          .intercept({ path: () => true, method: 'GET' })
          .reply((options) => {
            const headers = options.headers as Record<string, string>;
            seen.push({ origin, path: options.path, token: headers['private-token'] });
            return { statusCode: 200, data: JSON.stringify([{ id: 1 }]), responseOptions: { headers: { 'content-type': 'application/json' } } };
          })
          .persist();
      }
      const defs = await gitlabDefinitions();
      cleanup = defs.cleanup;
      gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir }, { dispatcher: network });
    });
    after(async () => {
      await gw.stop();
      await network.close();
      await cleanup();
    });
    beforeEach(() => (seen.length = 0));

    it('calls gitlab.com when the connection stores no address (the default)', async () => {
      const { status, body } = await runWith({ token: 'glpat-1' });
      expect(status).to.equal(200);
      expect(body).to.deep.include({ success: true, data: [{ id: 1 }] });
      expect(seen).to.deep.equal([{ origin: 'https://gitlab.com', path: '/api/v4/projects', token: 'glpat-1' }]);
    });

    it('calls the stored origin, port included, with the base URL path after it', async () => {
      const { status } = await runWith({ token: 'glpat-2', instanceUrl: 'https://gitlab.example.com:8443' });
      expect(status).to.equal(200);
      expect(seen).to.deep.equal([{ origin: 'https://gitlab.example.com:8443', path: '/api/v4/projects', token: 'glpat-2' }]);
    });

    for (const [what, instanceUrl] of [
      ['a path', 'https://gitlab.example.com:8443/evil'],
      ['user info', 'https://user:pw@gitlab.example.com'],
      ['a query', 'https://gitlab.example.com?x=1'],
      ['a fragment', 'https://gitlab.example.com#x'],
      ['a non-http scheme', 'ftp://gitlab.example.com'],
      ['no scheme', 'gitlab.example.com'],
    ] as const) {
      it(`refuses a stored address with ${what} (400 naming connection.instanceUrl, not its value), sending nothing`, async () => {
        const { status, body } = await runWith({ token: 'glpat-3', instanceUrl });
        expect(status).to.equal(400);
        expect(body.error.code).to.equal('VALIDATION_ERROR');
        expect(body.error.details.problems).to.deep.equal([
          {
            field: 'connection.instanceUrl',
            rule: 'hostVariable',
            message: 'baseUrl cannot use {{instanceUrl}}: its value is not an origin (http:// or https://, a host and an optional port, nothing else)',
          },
        ]);
        expect(JSON.stringify(body)).not.to.include(instanceUrl);
        expect(seen).to.have.length(0);
      });
    }

    for (const instanceUrl of ['http://127.0.0.1:8080', 'http://10.0.0.5', 'http://169.254.169.254', 'http://[::1]:8443']) {
      it(`refuses an internal address (${instanceUrl}) with EGRESS_DENIED (403)`, async () => {
        const { status, body } = await runWith({ token: 'glpat-4', instanceUrl });
        expect(status).to.equal(403);
        expect(body.error.code).to.equal('EGRESS_DENIED');
        expect(seen).to.have.length(0);
      });
    }
  });

  describe('an internal instance admitted by EGRESS_ALLOW', () => {
    const upstream = new Upstream();
    let gw: TestGateway;
    let cleanup: () => Promise<void>;

    before(async () => {
      await upstream.start();
      const defs = await gitlabDefinitions();
      cleanup = defs.cleanup;
      gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    });
    after(async () => {
      await gw.stop();
      await upstream.stop();
      await cleanup();
    });

    it('calls the instance on 127.0.0.1', async () => {
      upstream.on('GET /api/v4/projects', () => ({ body: [{ id: 7 }] }));
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'gitlab', credentials: { token: 't' }, metadata: { instanceUrl: upstream.url } } })).body.data.id;
      const { status, body } = await call(gw, 'POST', '/v2/universal/apps/gitlab/actions/list-projects/run', { body: { connectionId } });
      expect(status).to.equal(200);
      expect(body.data).to.deep.equal([{ id: 7 }]);
      expect(upstream.calls('GET /api/v4/projects')[0]!.headers['private-token']).to.equal('t');
    });
  });
});
