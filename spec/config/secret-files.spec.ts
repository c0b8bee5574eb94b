import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../engine/config/config.ts';
import { readSecretFiles } from '../../engine/config/secret-files.ts';
import { call } from '../helpers/gateway.ts';
import { runCommand, spawnGateway, type GatewayProcess, killIfRunning } from '../helpers/process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const KEY = Buffer.alloc(32, 9).toString('base64');
const CHOSEN_KEY = 'file-bootstrap-key-0123456789';

function problem(env: Record<string, string>): string {
  try {
    readSecretFiles(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

/** A start on a machine busy with other work can take 25 s (loading 133 definition files). */
const START_MS = 60_000;

describe('secrets given as files (X_FILE)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it('reads ENCRYPTION_KEY_FILE, BOOTSTRAP_API_KEY_FILE and MONGODB_URI_FILE into their variables, the trailing newline trimmed', async () => {
    await fs.writeFile(path.join(dir, 'key'), `${KEY}\n`);
    await fs.writeFile(path.join(dir, 'bootstrap'), `${CHOSEN_KEY}\r\n`);
    await fs.writeFile(path.join(dir, 'uri'), 'mongodb://gw:p%40ss@db:27017/gw\n');
    const env = readSecretFiles({
      ENCRYPTION_KEY_FILE: path.join(dir, 'key'),
      BOOTSTRAP_API_KEY_FILE: path.join(dir, 'bootstrap'),
      MONGODB_URI_FILE: path.join(dir, 'uri'),
      PORT: '9090',
    });
    expect(env).to.deep.equal({ ENCRYPTION_KEY: KEY, BOOTSTRAP_API_KEY: CHOSEN_KEY, MONGODB_URI: 'mongodb://gw:p%40ss@db:27017/gw', PORT: '9090' });
    const config = loadConfig(env);
    expect(config.encryptionKeys).to.deep.equal([KEY]);
    expect(config).to.include({ bootstrapApiKey: CHOSEN_KEY, mongodbUri: 'mongodb://gw:p%40ss@db:27017/gw', port: 9090 });
  });

  it('reads DATABASE_URL_FILE into DATABASE_URL, and a malformed one stops the start without showing it', async () => {
    await fs.writeFile(path.join(dir, 'db'), 'postgres://gw:p%40ss@db.internal:5432/gw\n');
    const config = loadConfig({ ...readSecretFiles({ DATABASE_URL_FILE: path.join(dir, 'db') }), ENCRYPTION_KEY: KEY });
    expect(config.databaseUrl).to.equal('postgres://gw:p%40ss@db.internal:5432/gw');
    await fs.writeFile(path.join(dir, 'bad'), 'mysql://gw:hunter2@db/gw\n');
    expect(() => loadConfig({ ...readSecretFiles({ DATABASE_URL_FILE: path.join(dir, 'bad') }), ENCRYPTION_KEY: KEY }))
      .to.throw(/^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/ \(it starts with mysql:\/\/\) \(the value is not shown/)
      .and.satisfy((e: Error) => !e.message.includes('hunter2'));
  });

  it('reads METRICS_TOKEN_FILE into the token /metrics asks for', async () => {
    const token = 'm'.repeat(40);
    await fs.writeFile(path.join(dir, 'metrics-token'), `${token}\n`);
    const config = loadConfig(readSecretFiles({ METRICS_TOKEN_FILE: path.join(dir, 'metrics-token') }));
    expect(config.metrics.token).to.equal(token);
  });

  it('leaves the environment as it is when no X_FILE is set, and does not touch variables that are not secrets', () => {
    expect(readSecretFiles({ ENCRYPTION_KEY: KEY, PORT_FILE: '/nowhere' })).to.deep.equal({ ENCRYPTION_KEY: KEY, PORT_FILE: '/nowhere' });
  });

  it('takes a new secret variable by its name alone', async () => {
    await fs.writeFile(path.join(dir, 'token'), 'scrape-token\n');
    expect(readSecretFiles({ METRICS_TOKEN_FILE: path.join(dir, 'token') }, ['METRICS_TOKEN'])).to.deep.equal({ METRICS_TOKEN: 'scrape-token' });
  });

  it('refuses X and X_FILE both set', async () => {
    await fs.writeFile(path.join(dir, 'key'), KEY);
    expect(problem({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_FILE: path.join(dir, 'key') })).to.equal('ENCRYPTION_KEY_FILE and ENCRYPTION_KEY are both set; set one of them');
  });

  it('refuses a missing file, naming the variable and the path', () => {
    const file = path.join(dir, 'absent');
    expect(problem({ BOOTSTRAP_API_KEY_FILE: file })).to.equal(`BOOTSTRAP_API_KEY_FILE names a file that cannot be read: ${file} (ENOENT)`);
  });

  it('refuses a path that is not a readable file (a directory)', () => {
    expect(problem({ MONGODB_URI_FILE: dir })).to.equal(`MONGODB_URI_FILE names a file that cannot be read: ${dir} (EISDIR)`);
  });

  it('refuses an empty file (or one holding only a newline) and an empty X_FILE', async () => {
    await fs.writeFile(path.join(dir, 'empty'), '\n');
    expect(problem({ ENCRYPTION_KEY_FILE: path.join(dir, 'empty') })).to.equal(`ENCRYPTION_KEY_FILE names an empty file: ${path.join(dir, 'empty')}`);
    expect(problem({ ENCRYPTION_KEY_FILE: ' ' })).to.match(/^ENCRYPTION_KEY_FILE is set but empty/);
  });

  it('a bad value read from a file is refused like the variable, and the message never holds the content', async () => {
    await fs.writeFile(path.join(dir, 'key'), 'not-a-key-but-a-secret\n');
    const env = readSecretFiles({ ENCRYPTION_KEY_FILE: path.join(dir, 'key') });
    expect(() => loadConfig(env)).to.throw(ConfigError, /^ENCRYPTION_KEY must be 32 bytes/);
    expect(() => loadConfig(env)).to.throw().with.property('message').that.does.not.include('not-a-key-but-a-secret');
  });

  describe('npm start and the admin tool', function () {
    this.timeout(180_000);
    let running: GatewayProcess | null = null;
    afterEach(async () => {
      await killIfRunning(running);
      running = null;
    });

    it('a gateway started with BOOTSTRAP_API_KEY_FILE and ENCRYPTION_KEY_FILE serves with that key, and the admin tool opens the same store with the same file', async () => {
      await fs.writeFile(path.join(dir, 'bootstrap'), `${CHOSEN_KEY}\n`);
      await fs.writeFile(path.join(dir, 'key'), `${KEY}\n`);
      const data = path.join(dir, 'data');
      const env = { PORT: '0', DATA_DIR: data, BOOTSTRAP_API_KEY_FILE: path.join(dir, 'bootstrap'), ENCRYPTION_KEY_FILE: path.join(dir, 'key') };
      running = await spawnGateway(env, START_MS);
      expect((await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/v1/users')).status).to.equal(200);
      expect((await call({ url: running.url, apiKey: CHOSEN_KEY }, 'GET', '/ready', { auth: null })).status).to.equal(200);
      expect(running.stdout() + running.stderr()).not.to.include(CHOSEN_KEY).and.not.to.include(KEY);
      // No encryption.key was generated: the key came from the file.
      await fs.access(path.join(data, 'encryption.key')).then(() => expect.fail('a key was generated'), () => {});
      running.child.kill('SIGTERM');
      expect(await running.exited).to.equal(0);
      const admin = await runCommand(['--import', 'tsx', 'scripts/admin.ts', 'credentials:reencrypt'], { DATA_DIR: data, ENCRYPTION_KEY_FILE: path.join(dir, 'key') });
      expect(admin.code, admin.stderr).to.equal(0);
    });

    it('npm start refuses an unreadable file with one line naming the variable and the path', async () => {
      const file = path.join(dir, 'absent');
      const result = await runCommand(['--import', 'tsx', 'engine/main.ts'], { PORT: '0', DATA_DIR: dir, ENCRYPTION_KEY_FILE: file });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim()).to.equal(`config error: ENCRYPTION_KEY_FILE names a file that cannot be read: ${file} (ENOENT)`);
    });

    it('the admin tool refuses X and X_FILE both set', async () => {
      await fs.writeFile(path.join(dir, 'key'), KEY);
      const result = await runCommand(['--import', 'tsx', 'scripts/admin.ts', 'credentials:reencrypt'], { DATA_DIR: dir, ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_FILE: path.join(dir, 'key') });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim()).to.equal('config error: ENCRYPTION_KEY_FILE and ENCRYPTION_KEY are both set; set one of them');
    });
  });
});
