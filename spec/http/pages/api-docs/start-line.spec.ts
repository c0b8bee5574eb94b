import { expect } from 'chai';
import { deliverBootstrapKey } from '../../../../engine/tenancy/companies/bootstrap-key-delivery.ts';
import { createLogger } from '../../../../engine/platform/log/logger.ts';
import { spawnGateway, type GatewayProcess } from '../../../helpers/process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';

describe('the start points at the API pages', function () {
  this.timeout(60_000);
  let running: GatewayProcess | null = null;
  let cleanup: (() => Promise<void>) | null = null;
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    running = null;
    await cleanup?.();
  });

  function listeningLine(p: GatewayProcess): Record<string, unknown> {
    const line = p.stdout().split('\n').find((l) => l.includes('"msg":"gateway listening"'));
    expect(line, p.stdout()).to.not.equal(undefined);
    return JSON.parse(line!);
  }

  it('logs the docs URL on the "gateway listening" line, at the port bound (PORT=0), and it answers the page', async () => {
    const made = await tempDir();
    cleanup = made.cleanup;
    running = await spawnGateway({ PORT: '0', DATA_DIR: made.dir, BOOTSTRAP_API_KEY: 'docs-start-line-key-0123456789' });
    const line = listeningLine(running);
    expect(line.docs).to.equal(`http://localhost:${line.port}/docs`);
    const page = await fetch(running.url + new URL(String(line.docs)).pathname);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.include('swagger-ui-bundle.js');
    // The compiled build (dist/) finds the installed viewer as the sources do.
    expect((await fetch(`${running.url}/docs/assets/swagger-ui-bundle.js`)).status).to.equal(200);
  });

  it('logs it on PUBLIC_BASE_URL when that is set (the address people reach it at)', async () => {
    const made = await tempDir();
    cleanup = made.cleanup;
    running = await spawnGateway({ PORT: '0', DATA_DIR: made.dir, BOOTSTRAP_API_KEY: 'docs-start-line-key-0123456789', PUBLIC_BASE_URL: 'https://gateway.example.com' });
    expect(listeningLine(running).docs).to.equal('https://gateway.example.com/docs');
  });

  it('names the docs URL in the banner shown on a terminal with the generated key', async () => {
    let screen = '';
    await deliverBootstrapKey('igw_example', { port: 8123, dataDir: '/nonexistent', terminal: { isTTY: true, write: (text: string) => (screen += text) }, logger: createLogger('silent') });
    expect(screen).to.include('API docs: http://localhost:8123/docs');
  });
});
