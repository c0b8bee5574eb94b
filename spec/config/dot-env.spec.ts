import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { call } from '../helpers/gateway.ts';
import { ROOT, spawnGateway, type GatewayProcess, killIfRunning } from '../helpers/process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { eventually } from '../support/eventually.ts';

const CHOSEN_KEY = 'dotenv-bootstrap-key-0123456789';

/** A port in this spec's range that nothing else here listens on. */
const DOTENV_PORT = 41431;

/** A start on a machine busy with other work can take 25 s (loading 133 definition files). */
const START_MS = 60_000;

describe('.env in development', function () {
  this.timeout(180_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    await fs.mkdir(path.join(dir, 'definitions'));
    await fs.writeFile(
      path.join(dir, '.env'),
      `# a developer's settings\nPORT=${DOTENV_PORT}\nLOG_LEVEL=debug\nDATA_DIR=${path.join(dir, 'data')}\nDEFINITIONS_DIR=${path.join(dir, 'definitions')}\nBOOTSTRAP_API_KEY=${CHOSEN_KEY}\n`,
    );
  });
  afterEach(async () => {
    await killIfRunning(running);
    running = null;
    await cleanup();
  });

  /** Touches the definitions folder and answers once the reload it causes is logged: a debug line ("definitions changed") comes before it when LOG_LEVEL is debug. */
  async function touchDefinitions(p: GatewayProcess): Promise<string> {
    const loads = () => p.stdout().split('"msg":"definitions loaded"').length;
    const before = loads();
    await fs.writeFile(path.join(dir, 'definitions', 'notes.txt'), 'x');
    await eventually(async () => loads(), (n) => n > before, 'the change is reloaded');
    return p.stdout();
  }

  /** The environment spawnGateway would add, less what the .env is to give. */
  const base = { PORT: undefined, LOG_LEVEL: undefined } as unknown as Record<string, string>;

  it('is read from the working directory: PORT and LOG_LEVEL come from it, and the start logs the names it read, never the values', async () => {
    running = await spawnGateway({ ...base }, START_MS, { cwd: dir });
    expect(running.url).to.equal(`http://127.0.0.1:${DOTENV_PORT}`);
    expect((await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/v1/users')).status).to.equal(200);
    const read = running.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => /^read \.env/.test(l.msg));
    expect(read, running.stdout()).to.deep.include({ file: path.join(dir, '.env'), variables: ['BOOTSTRAP_API_KEY', 'DATA_DIR', 'DEFINITIONS_DIR', 'LOG_LEVEL', 'PORT'] });
    // LOG_LEVEL=debug from the file: debug lines are written.
    expect(await touchDefinitions(running)).to.match(/"level":20,[^\n]*"msg":"definitions changed"/);
    expect(running.stdout()).not.to.include(CHOSEN_KEY);
  });

  it('a variable set in the environment wins over the file', async () => {
    running = await spawnGateway({ ...base, PORT: '0', LOG_LEVEL: 'info' }, START_MS, { cwd: dir });
    expect(running.url).not.to.equal(`http://127.0.0.1:${DOTENV_PORT}`);
    expect(await touchDefinitions(running)).not.to.include('"level":20,');
    // What the environment did not set still comes from the file.
    expect((await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/v1/users')).status).to.equal(200);
  });

  it('NODE_ENV=production ignores it', async () => {
    running = await spawnGateway({ ...base, PORT: '0', NODE_ENV: 'production', DATA_DIR: path.join(dir, 'prod-data'), DEFINITIONS_DIR: path.join(dir, 'definitions') }, START_MS, { cwd: dir });
    expect(running.url).not.to.equal(`http://127.0.0.1:${DOTENV_PORT}`);
    expect(running.stdout()).not.to.include('read .env');
    expect(await touchDefinitions(running)).not.to.include('"level":20,');
    // BOOTSTRAP_API_KEY from the file was not used: the owner's key was generated instead.
    expect((await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/v1/users')).status).to.equal(401);
  });
});

describe('.env.example', () => {
  it('parses as a .env file, and every variable it names (set or commented) is documented in the README', async () => {
    const text = await fs.readFile(path.join(ROOT, '.env.example'), 'utf8');
    expect(() => parseEnv(text)).not.to.throw();
    const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
    const names = [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(names).to.include.members(['PORT', 'ENCRYPTION_KEY_FILE', 'SHUTDOWN_DRAIN_MS']);
    for (const name of names) expect(readme, name).to.include(`\`${name}\``);
  });
});
