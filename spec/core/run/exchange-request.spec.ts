import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { definitionsFor, Upstream, type ReceivedRequest } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/exchange');
const SECRET = 'exchange-shared-secret-789';

/** The fenced code block that follows `<!-- marker -->` in the README: the snippet customers paste. */
async function readmeSnippet(marker: string): Promise<string> {
  const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  expect(match, `README has no code block after <!-- ${marker} -->`).to.not.equal(null);
  return match![1]!;
}

describe('the credential-exchange request: where it goes and what its signature covers', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  async function installFor(app: string, metadata: Record<string, string>): Promise<{ installationId: string; endUserId: string }> {
    await call(gw, 'PUT', `/v2/apps/${app}/configuration`, { body: { exchangeSecret: SECRET } });
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { metadata } })).body.data.userId;
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: app } })).body.data.id;
    const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: app, connectionId }] } })).body.data.id;
    return { installationId, endUserId };
  }

  it('fills {{metadata.tenant}} in the exchange URL\'s host as one host label: a value with a port, path and "?" is refused (400), and nothing is sent', async () => {
    upstream.on('POST /exchange', () => ({ body: { token: 'hijacked', expiresIn: 300 } }));
    const port = new URL(upstream.url).port;
    const { installationId } = await installFor('tenanted', { tenant: `127.0.0.1:${port}/exchange?` });
    const ran = await call(gw, 'POST', '/v2/universal/apps/tenanted/actions/whoami/run', { body: { installationId } });
    expect(ran.status, JSON.stringify(ran.body)).to.equal(400);
    expect(ran.body.error.code).to.equal('VALIDATION_ERROR');
    expect(ran.body.error.details.problems).to.deep.equal([
      { field: 'metadata.tenant', rule: 'hostVariable', message: 'auth exchange url cannot use {{metadata.tenant}}: its value is not one host label (letters, digits and inner hyphens, up to 63)' },
    ]);
    expect(upstream.calls('POST /exchange'), 'the signed POST went nowhere').to.have.length(0);
  });

  describe('the signature (README: verifying the exchange request)', () => {
    let signed: ReceivedRequest;
    let endUserId: string;
    before(async () => {
      upstream.on('POST /exchange', () => ({ body: { token: 'partner-token', expiresIn: 300 } }));
      upstream.on('GET /partner/me', () => ({ body: { id: 'me' } }));
      const installed = await installFor('signed', { tenant: 't-42' });
      endUserId = installed.endUserId;
      const ran = await call(gw, 'POST', '/v2/universal/apps/signed/actions/whoami/run', { body: { installationId: installed.installationId } });
      expect(ran.status, JSON.stringify(ran.body)).to.equal(200);
      [signed] = upstream.calls('POST /exchange');
      expect(signed).to.not.equal(undefined);
    });

    it('sends X-Timestamp, X-Nonce and X-Signature, the signature over timestamp, nonce, method, path with query and the SHA-256 of the body', () => {
      expect(signed.headers['x-timestamp']).to.match(/^\d{10}$/);
      expect(signed.headers['x-nonce']).to.match(/^[A-Za-z0-9_-]{22}$/);
      expect(signed.headers['x-signature']).to.match(/^[0-9a-f]{64}$/);
      expect(JSON.parse(signed.body)).to.include({ tenant: 't-42', integrationId: 'signed', endUserId });
    });

    it("verifies with the README's Node snippet, and fails for another body, a replayed nonce, another path, or 61 s later", async () => {
      const { dir, cleanup } = await tempDir();
      try {
        const file = path.join(dir, 'verify.mjs');
        await fs.writeFile(file, await readmeSnippet('exchange-verify-node'));
        const { verifyExchange } = (await import(pathToFileURL(file).href)) as {
          verifyExchange: (secret: string, req: { method: string; target: string; headers: Record<string, unknown>; body: Buffer }, now?: number) => boolean;
        };
        const request = { method: signed.method, target: `/exchange?${signed.query}`, headers: signed.headers, body: Buffer.from(signed.body) };
        const at = Number(signed.headers['x-timestamp']) * 1000;
        const otherBody = Buffer.from(signed.body.replace(endUserId, 'usr_someone_else'));
        expect(verifyExchange(SECRET, { ...request, body: otherBody }, at), 'a body naming another end user').to.equal(false);
        expect(verifyExchange(SECRET, { ...request, target: '/exchange' }, at), 'another path').to.equal(false);
        expect(verifyExchange(SECRET, request, at + 61_000), '61 s later').to.equal(false);
        expect(verifyExchange('another-secret', request, at), 'another secret').to.equal(false);
        expect(verifyExchange(SECRET, request, at + 30_000), 'the request as sent').to.equal(true);
        expect(verifyExchange(SECRET, request, at + 31_000), 'the same request again (its nonce seen)').to.equal(false);
      } finally {
        await cleanup();
      }
    });

    it("verifies with the README's Python snippet (python3), and fails for another body and a replayed nonce", async function () {
      if (spawnSync('python3', ['--version']).status !== 0) this.skip();
      const { dir, cleanup } = await tempDir();
      try {
        const file = path.join(dir, 'verify.py');
        const harness = [
          'import base64, json, sys',
          'r = json.load(sys.stdin)',
          'body = base64.b64decode(r["body"])',
          'other = base64.b64decode(r["other"])',
          'print(json.dumps([',
          '  verify_exchange(r["secret"], r["method"], r["target"], r["headers"], other, r["now"]),',
          '  verify_exchange(r["secret"], r["method"], r["target"], r["headers"], body, r["now"]),',
          '  verify_exchange(r["secret"], r["method"], r["target"], r["headers"], body, r["now"]),',
          ']))',
        ].join('\n');
        await fs.writeFile(file, `${await readmeSnippet('exchange-verify-python')}\n\n${harness}\n`);
        const input = {
          secret: SECRET,
          method: signed.method,
          target: `/exchange?${signed.query}`,
          headers: signed.headers,
          body: Buffer.from(signed.body).toString('base64'),
          other: Buffer.from(signed.body.replace(endUserId, 'usr_someone_else')).toString('base64'),
          now: Number(signed.headers['x-timestamp']) + 5,
        };
        const ran = spawnSync('python3', [file], { input: JSON.stringify(input), encoding: 'utf8' });
        expect(ran.status, ran.stderr).to.equal(0);
        expect(JSON.parse(ran.stdout), 'another body, the request as sent, the same again').to.deep.equal([false, true, false]);
      } finally {
        await cleanup();
      }
    });
  });
});
