import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import { eventually } from '../../support/eventually.ts';

/** `--import` module whose loader hooks make the packages in REFUSE_IMPORTS fail to load, as when they are not installed. */
const REFUSE = path.join(ROOT, 'spec/fixtures/refuse-imports/register.mjs');
const ACTION = 'acme/versions/1/actions/list-lists.yaml';

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
}

const lines = (gateway: GatewayProcess): LogLine[] =>
  gateway
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

describe('the gateway process when optional packages cannot load', function () {
  this.timeout(180_000);
  let defs: Awaited<ReturnType<typeof tempDir>>;
  let data: Awaited<ReturnType<typeof tempDir>>;
  let gateway: GatewayProcess | null = null;

  beforeEach(async () => {
    defs = await tempDir('gw-fallback-defs-');
    data = await tempDir('gw-fallback-data-');
    await copyValid(defs.dir);
  });
  afterEach(async () => {
    if (gateway && gateway.child.exitCode === null) {
      gateway.child.kill('SIGKILL');
      await gateway.exited;
    }
    gateway = null;
    await defs.remove();
    await data.remove();
  });

  const start = (env: Record<string, string>) =>
    // Generous: on a loaded machine a start takes tens of seconds.
    spawnGateway({ PORT: '0', DATA_DIR: data.dir, DEFINITIONS_DIR: defs.dir, NODE_OPTIONS: `--import=${REFUSE}`, ...env }, 90_000);

  const edit = async (name: string) => {
    const file = path.join(defs.dir, ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/name: .*/, `name: ${name}`));
  };

  it('without @parcel/watcher and mongodb: starts on the embedded store, warns once, and reloads a changed file through fs.watch', async () => {
    gateway = await start({ REFUSE_IMPORTS: '@parcel/watcher,mongodb' });
    expect((await fetch(`${gateway.url}/health`)).status).to.equal(200);
    const warnings = lines(gateway).filter((l) => l.level === 40);
    expect(warnings.map((l) => l.msg)).to.deep.equal(["@parcel/watcher cannot be loaded: watching definitions with Node's recursive fs.watch"]);
    expect(gateway.stdout()).to.include('refused by spec/fixtures/refuse-imports');
    await edit('Lists seen through fs.watch');
    await eventually(
      async () => lines(gateway!).filter((l) => l.msg === 'definitions loaded').map((l) => l.reason),
      (reasons) => reasons.includes(`change ${ACTION}`),
      'the change reloaded',
    );
  });

  it('loads mongodb when MONGODB_URI is set: the same refusal then stops the start, naming it (so the embedded start above did not load it)', async () => {
    const failed = await start({ REFUSE_IMPORTS: 'mongodb', MONGODB_URI: 'mongodb://127.0.0.1:1/gateway', ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failed).to.include('gateway exited with 1 before listening').and.include("Cannot find package 'mongodb' (refused by spec/fixtures/refuse-imports)");
  });

  it('without @parcel/watcher nor recursive fs.watch: starts, warns that only SIGHUP reloads, and reloads on SIGHUP', async () => {
    gateway = await start({ REFUSE_IMPORTS: '@parcel/watcher', REFUSE_RECURSIVE_WATCH: '1' });
    expect((await fetch(`${gateway.url}/health`)).status).to.equal(200);
    expect(lines(gateway).filter((l) => l.level === 40).map((l) => l.msg)).to.deep.equal([
      '@parcel/watcher cannot be loaded and recursive fs.watch does not work here: definitions reload on SIGHUP only',
    ]);
    await edit('Lists reloaded on SIGHUP');
    // Nothing watches the files: a change alone is not reloaded (a watcher reloads within tens of ms).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(lines(gateway).filter((l) => l.msg === 'definitions loaded').map((l) => l.reason)).to.deep.equal(['start']);
    gateway.child.kill('SIGHUP');
    await eventually(
      async () => lines(gateway!).filter((l) => l.msg === 'definitions loaded').map((l) => l.reason),
      (reasons) => reasons.includes('SIGHUP'),
      'the SIGHUP reload',
    );
  });
});
