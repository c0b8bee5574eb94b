import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { killIfRunning, ROOT, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { tempDir } from '../../support/definition-fixtures.ts';
import { eventually } from '../../support/eventually.ts';

const ACTION = 'stripe/versions/1/actions/list-customers.yaml';

interface Loaded {
  msg: string;
  reason: string;
  files: number;
  analysed: number;
  cached: number;
}

const loads = (gateway: GatewayProcess): Loaded[] =>
  gateway
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Loaded)
    .filter((line) => line.msg === 'definitions loaded');

describe('the gateway with its definitions cache (compiled, as npm start runs it)', function () {
  this.timeout(240_000);
  let defs: Awaited<ReturnType<typeof tempDir>>;
  let data: Awaited<ReturnType<typeof tempDir>>;
  let gateway: GatewayProcess | null = null;

  beforeEach(async () => {
    defs = await tempDir('gw-cache-defs-');
    data = await tempDir('gw-cache-data-');
    await fs.cp(path.join(ROOT, 'definitions'), defs.dir, { recursive: true });
  });
  afterEach(async () => {
    await killIfRunning(gateway);
    gateway = null;
    await defs.remove();
    await data.remove();
  });

  const start = async (env: Record<string, string> = {}) => {
    gateway = await spawnGateway({ PORT: '0', DATA_DIR: data.dir, DEFINITIONS_DIR: defs.dir, ...env }, 90_000);
    return gateway;
  };
  const stop = async () => {
    gateway!.child.kill('SIGTERM');
    expect(await gateway!.exited).to.equal(0);
  };

  it('keeps analyses in DATA_DIR/cache/definitions: a restart parses no file, a hot reload refreshes what it parsed', async () => {
    const first = loads(await start());
    expect(first).to.have.length(1);
    const files = first[0]!.files;
    expect(first[0]).to.include({ reason: 'start', analysed: files, cached: 0 });
    await stop();
    const [engine, ...others] = await fs.readdir(path.join(data.dir, 'cache/definitions'));
    expect(others).to.deep.equal([]);
    const apps = (await fs.readdir(defs.dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).length;
    expect(await fs.readdir(path.join(data.dir, 'cache/definitions', engine!))).to.have.length(apps);

    const restarted = await start();
    expect(loads(restarted)[0]).to.include({ reason: 'start', files, analysed: 0, cached: files });
    const file = path.join(defs.dir, ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/^name: .*$/m, 'name: Customers, renamed'));
    const reloaded = await eventually(
      async () => loads(restarted).filter((line) => line.reason !== 'start'),
      (lines) => lines.length > 0,
      'the edit reloaded',
    );
    expect(reloaded[0]).to.include({ analysed: 1, cached: 0 });
    await stop();

    expect(loads(await start())[0]).to.include({ reason: 'start', files, analysed: 0, cached: files });
  });

  it('DEFINITIONS_CACHE_DIR=off: nothing is written, every start parses every file', async () => {
    const first = loads(await start({ DEFINITIONS_CACHE_DIR: 'off' }))[0]!;
    expect(first).to.include({ analysed: first.files, cached: 0 });
    await stop();
    expect(await fs.readdir(data.dir)).to.not.include('cache');
    expect(loads(await start({ DEFINITIONS_CACHE_DIR: 'off' }))[0]).to.include({ analysed: first.files, cached: 0 });
  });
});
