import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS from 'openapi-typescript';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const PROGRAM = path.join(ROOT, 'spec/fixtures/generated-client/program.ts');

/** The test apps of the run specs, and three more: an app nobody answers, a mapping that always fails, an endpoint that always rate-limits. */
const EXTRA: Record<string, string> = {
  'down/app.yaml': 'id: down\nslug: down\nname: down\npublished: 1\n',
  'down/versions/1/api.yaml': 'baseUrl: http://127.0.0.1:9\nauths:\n  - token\n',
  'down/versions/1/auths/token.yaml': 'type: Bearer\nid: token\ntoken: fixed\n',
  'down/versions/1/actions/ping.yaml': 'id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\n',
  'shop/versions/1/actions/broken.yaml': 'id: broken\nslug: broken\nname: Broken\noperation: list\nmethod: GET\npath: /broken\nresponse: \'{ "data": body.result.total + "EUR" }\'\n',
};

/**
 * Issue 16 item 5: a client generated from the live documents, used by a
 * program written as a user writes one, compiles without casts and reads
 * what the gateway really answers, failures (4xx, 429, 502) included.
 */
describe('a client generated from /v1/openapi.json and /v2/openapi.json', function () {
  this.timeout(120_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let work: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), upstream.url, EXTRA);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o1' }, { id: 'o2' }], next: null } } }));
    upstream.on('GET /api/busy', () => ({ status: 429, body: { error: 'slow down' } }));
    upstream.on('GET /api/broken', () => ({ body: { result: { orders: [] } } }));

    // Inside the repository, so the program's `openapi-fetch` resolves from its node_modules
    // (.tmp/ is git-ignored, so a fresh clone does not have it).
    await fs.mkdir(path.join(ROOT, '.tmp'), { recursive: true });
    work = await fs.mkdtemp(path.join(ROOT, '.tmp', 'generated-client-'));
    for (const version of ['v1', 'v2']) {
      const { status, body } = await call(gw, 'GET', `/${version}/openapi.json`, { auth: null });
      expect(status).to.equal(200);
      await fs.writeFile(path.join(work, `${version}.ts`), await openapiTS(body));
    }
    await fs.copyFile(PROGRAM, path.join(work, 'program.ts'));
    const compilerOptions = {
      target: 'ES2023',
      lib: ['ES2023', 'DOM'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
    };
    await fs.writeFile(path.join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['program.ts'] }, null, 2));
  });
  after(async () => {
    await gw?.stop();
    await upstream.stop();
    await cleanup?.();
    if (work) await fs.rm(work, { recursive: true, force: true });
  });

  it('is used without casts: the program has no `as`, no `any`, no non-null `!`', async () => {
    const code = (await fs.readFile(PROGRAM, 'utf8'))
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
      .replace(/'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''")
      // `import type { paths as V1 }` renames; it casts nothing.
      .replace(/^import .*$/gm, '');
    // `x as T`, `any`, `x!` and the old `<T>x` assertion (a generic call such as createClient<V1>(...) is not one).
    expect(code.match(/\bas\b|\bany\b|[\w)\]]!(?!=)|(?:^|[=(,:?]|return)\s*<[A-Z]\w*>/gm) ?? []).to.deep.equal([]);
  });

  it('type-checks with the project\'s TypeScript, strict', async () => {
    const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
    const result = await promisify(execFile)(tsc, ['-p', path.join(work, 'tsconfig.json')], { cwd: work }).then(
      () => ({ code: 0, out: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, out: `${error.stdout}${error.stderr}` }),
    );
    expect(result.out).to.equal('');
    expect(result.code).to.equal(0);
  });

  it('calls every operation of both documents and reads what the gateway answers, 4xx, 429 and 502 included', async () => {
    const program: {
      main: (baseUrl: string, apiKey: string, fetch: (input: Request) => Promise<Response>) => Promise<{ call: string; status: number; read: string }[]>;
    } = await import(pathToFileURL(path.join(work, 'program.ts')).href);
    // Every answer the client gets is also checked against its document, status and body.
    const answers: { method: string; path: string; status: number; body: unknown; headers: Headers }[] = [];
    const recording = async (request: Request) => {
      const response = await fetch(request);
      const text = await response.clone().text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: the text is the body */
      }
      const url = new URL(request.url);
      answers.push({ method: request.method, path: url.pathname + url.search, status: response.status, body, headers: response.headers });
      return response;
    };
    const seen = await program.main(gw.url, gw.apiKey, recording);
    expect(answers).to.have.length(seen.length);
    for (const answer of answers) expectDocumented(answer.method, answer.path, answer);
    const lines = seen.map((s) => `${s.call} ${s.status} ${s.read}`);
    expect(lines).to.deep.equal([
      'getOpenApiDocument 200 3.1.0',
      'getOpenApiDocumentV2 200 3.1.0',
      'listUsers 200 owner@example.com',
      'listUsers 401 UNAUTHORIZED',
      'createEndUser 200 eu_',
      'createEndUser 400 VALIDATION_ERROR',
      'getEndUserToken 200 jwt',
      'getEndUserToken 404 NOT_FOUND',
      'listCompanies 200 1',
      'listCompanies 400 VALIDATION_ERROR',
      'getDefinitionsStatus 200 0',
      'listApps 200 crm,down,machine,partner,shop',
      'getAppIcon 200 image/svg+xml true',
      'listActions 200 true',
      'listActions 404 APP_NOT_FOUND',
      'describeAction 200 status:Fixed',
      'listArgumentOptions 200 open,paid',
      'listArgumentOptions 404 ARGUMENT_NOT_FOUND',
      'createConnection 201 active',
      'createConnection 201 Bearer',
      'createConnection 400 VALIDATION_ERROR',
      'listConnections 200 Shop',
      'listConnections 400 VALIDATION_ERROR',
      'getConnection 200 eu',
      'updateConnection 200 Shop EU',
      'updateConnection 400 VALIDATION_ERROR',
      'createInstallation 201 shop,down',
      'listInstallations 200 false',
      'getInstallation 200 eu_',
      'deleteConnection 409 CONFLICT',
      'runInstallationAction 200 true 2 200',
      'runInstallationAction 429 false true',
      'runInstallationAction 502 envelope {"code":"MAPPING_ERROR","messag',
      'runInstallationAction 502 UPSTREAM_UNREACHABLE',
      'runInstallationAction 404 NOT_FOUND',
      'runInstallationAction 403 FORBIDDEN',
      'runInstallationAction 400 VALIDATION_ERROR',
      'runInstallationAction 401 UNAUTHORIZED',
      'runAction 200 true 2',
      'runAction 429 2',
      'runAction 502 false',
      'runAction 400 CONNECTION_SELECTOR_CONFLICT',
      'runAction 404 NOT_FOUND',
      'proxyGet 200 integration-gateway; received-status=200',
      'proxyHead 404 integration-gateway; received-status=404',
      'proxyPost 404 integration-gateway; received-status=404',
      'proxyPut 404 integration-gateway; received-status=404',
      'proxyPatch 404 integration-gateway; received-status=404',
      'proxyDelete 404 integration-gateway; received-status=404',
      'proxyGet 404 gateway',
      'proxyGet 400 gateway',
      'proxyGetBaseUrl 404 integration-gateway; received-status=404',
      'proxyHeadBaseUrl 404 integration-gateway; received-status=404',
      'proxyPostBaseUrl 404 integration-gateway; received-status=404',
      'proxyPutBaseUrl 404 integration-gateway; received-status=404',
      'proxyPatchBaseUrl 404 integration-gateway; received-status=404',
      'proxyDeleteBaseUrl 404 integration-gateway; received-status=404',
      'getAppConfiguration 404 NOT_FOUND',
      'putAppConfiguration 200 true',
      'putAppConfiguration 400 VALIDATION_ERROR',
      'getAppConfiguration 200 crm-client',
      'getEmbedding 200 0',
      'putEmbedding 400 VALIDATION_ERROR',
      'putEmbedding 200 shop,crm true',
      'listEndUserApps 200 shop:form,crm:oauth',
      'createEndUserConnection 201 active',
      'createEndUserConnection 403 APP_NOT_ENABLED',
      'runEndUserAction 200 true [{"id":"o1"},{"id":"o2"}]',
      'runEndUserAction 404 NOT_FOUND',
      'endUserProxyGet 200 integration-gateway; received-status=200',
      'endUserProxyHead 404 integration-gateway; received-status=404',
      'endUserProxyPost 404 integration-gateway; received-status=404',
      'endUserProxyPut 404 integration-gateway; received-status=404',
      'endUserProxyPatch 404 integration-gateway; received-status=404',
      'endUserProxyDelete 404 integration-gateway; received-status=404',
      'endUserProxyGet 404 gateway',
      'endUserProxyGetBaseUrl 404 integration-gateway; received-status=404',
      'endUserProxyHeadBaseUrl 404 integration-gateway; received-status=404',
      'endUserProxyPostBaseUrl 404 integration-gateway; received-status=404',
      'endUserProxyPutBaseUrl 404 integration-gateway; received-status=404',
      'endUserProxyPatchBaseUrl 404 integration-gateway; received-status=404',
      'endUserProxyDeleteBaseUrl 404 integration-gateway; received-status=404',
      'listEndUserConnections 200 shop,down,shop',
      'getEndUserSession 200 https://app.example.com',
      'reconnectEndUserConnection 200 active',
      'reauthorizeEndUserConnection 400 VALIDATION_ERROR',
      'deleteEndUserConnection 200 true',
      'deleteEndUserConnection 404 NOT_FOUND',
      'authorizeConnection 200 crm-client',
      'authorizeConnection 200 url',
      'authorizeConnection 400 VALIDATION_ERROR',
      'connectCallback 400 OAUTH_STATE_INVALID',
      'getConnectChoice 404 NOT_FOUND',
      'makeConnectChoice 404 NOT_FOUND',
      'createWebhook 201 whsec_',
      'createWebhook 400 VALIDATION_ERROR',
      'listWebhooks 200 end_user.deleted',
      'getWebhook 200 client',
      'updateWebhook 200 false',
      'rotateWebhookSecret 200 whsec_',
      'listWebhookDeliveries 200 0',
      'deleteWebhook 200 true',
      'getWebhook 404 NOT_FOUND',
      'deleteInstallation 200 true',
      'deleteInstallation 404 NOT_FOUND',
      'deleteConnection 200 true',
      'getConnection 404 NOT_FOUND',
      'listEndUsers 200 Ada',
      'listEndUsers 400 VALIDATION_ERROR',
      'getEndUser 200 3',
      'updateEndUser 200 ada@example.test null',
      'updateEndUser 400 VALIDATION_ERROR',
      'deleteEndUser 200 true 1',
      'deleteEndUser 404 NOT_FOUND',
      'getEndUser 404 NOT_FOUND',
    ]);
  });

  it('calls every operation the two documents describe', async () => {
    const called = new Set((await fs.readFile(PROGRAM, 'utf8')).match(/note\('(\w+)'/g)!.map((m) => m.slice(6, -1)));
    const documented: string[] = [];
    for (const version of ['v1', 'v2']) {
      const { body } = await call(gw, 'GET', `/${version}/openapi.json`, { auth: null });
      for (const item of Object.values<any>(body.paths)) for (const op of Object.values<any>(item)) documented.push(op.operationId);
    }
    expect(documented.filter((id) => !called.has(id))).to.deep.equal([]);
  });
});
