import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createKeyring } from '../../engine/platform/crypto/keyring.ts';
import { runAdminCommand } from '../../engine/admin/commands.ts';
import { openStore, type Store } from '../../engine/platform/store/index.ts';
import { call } from '../helpers/gateway.ts';
import { runCommand, spawnGateway, waitForStdout } from '../helpers/process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { ADMIN_SOCKET, sendAdminCommand } from '../../engine/admin/admin-socket.ts';
import { LOCK_FILE } from '../../engine/platform/store/embedded/data-dir-lock.ts';

const keyring = createKeyring([randomBytes(32).toString('base64')]);

async function json(store: Store, ...argv: string[]): Promise<any> {
  const result = await runAdminCommand({ store, keyring }, [...argv, '--json']);
  expect(result.exitCode, result.output).to.equal(0);
  return JSON.parse(result.output);
}

describe('admin commands', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const tmp = await tempDir();
    cleanup = tmp.cleanup;
    store = await openStore({ dataDir: tmp.dir, mongodbUri: undefined, pgliteTemplateDir: process.env.PGLITE_TEMPLATE_DIR });
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('creates a company, adds members, and lists both', async () => {
    const { companyId } = await json(store, 'companies:create', '--name', 'Acme');
    await json(store, 'members:add', '--company', companyId, '--email', 'Ada@Acme.test', '--name', 'Ada', '--role', 'owner');
    await json(store, 'members:add', '--company', companyId, '--email', 'bob@acme.test', '--name', 'Bob');
    expect(await json(store, 'companies:list')).to.deep.equal([{ companyId, name: 'Acme', memberCount: 2 }]);
    const members = await json(store, 'members:list', '--company', companyId);
    expect(members.map((m: any) => [m.email, m.role])).to.deep.equal([['ada@acme.test', 'owner'], ['bob@acme.test', 'member']]);
  });

  it('refuses a member twice, an unknown company, and a bad role', async () => {
    const { companyId } = await json(store, 'companies:create', '--name', 'Acme');
    await json(store, 'members:add', '--company', companyId, '--email', 'ada@acme.test', '--name', 'Ada');
    const twice = await runAdminCommand({ store, keyring }, ['members:add', '--company', companyId, '--email', 'ada@acme.test', '--name', 'Ada']);
    expect(twice).to.deep.equal({ exitCode: 1, output: `error: ada@acme.test is already a member of company ${companyId}` });
    const nobody = `cmp_${'0'.repeat(24)}`;
    const unknown = await runAdminCommand({ store, keyring }, ['members:add', '--company', nobody, '--email', 'x@y.z', '--name', 'X']);
    expect(unknown).to.deep.equal({ exitCode: 1, output: `error: company ${nobody} does not exist` });
    const role = await runAdminCommand({ store, keyring }, ['members:add', '--company', companyId, '--email', 'x@y.z', '--name', 'X', '--role', 'god']);
    expect(role.exitCode).to.equal(2);
    expect(role.output).to.match(/^--role must be owner, admin or member\nusage: npm run admin -- members:add/);
  });

  it('creates a key shown once, lists keys without secrets, and revokes', async () => {
    const { companyId } = await json(store, 'companies:create', '--name', 'Acme');
    await json(store, 'members:add', '--company', companyId, '--email', 'ada@acme.test', '--name', 'Ada');
    const created = await json(store, 'keys:create', '--company', companyId, '--email', 'ada@acme.test', '--name', 'ci');
    expect(created.key).to.match(/^igw_[A-Za-z0-9_-]{43}$/);
    const listed = await json(store, 'keys:list', '--company', companyId);
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ apiKeyId: created.apiKeyId, name: 'ci', prefix: created.key.slice(0, 8), revokedOn: null });
    expect(JSON.stringify(listed)).not.to.include(created.key);
    expect(Object.keys(listed[0])).not.to.include('hash');
    await json(store, 'keys:revoke', created.apiKeyId);
    expect((await json(store, 'keys:list'))[0].revokedOn).to.be.a('string');
    expect(await runAdminCommand({ store, keyring }, ['keys:revoke', created.apiKeyId])).to.deep.equal({ exitCode: 1, output: `error: API key ${created.apiKeyId} is already revoked` });
  });

  it('explains unknown commands and options', async () => {
    const unknown = await runAdminCommand({ store, keyring }, ['frobnicate']);
    expect(unknown.exitCode).to.equal(2);
    expect(unknown.output).to.match(/^unknown command "frobnicate"\n\nusage: npm run admin/);
    const option = await runAdminCommand({ store, keyring }, ['companies:create', '--nmae', 'x']);
    expect(option.exitCode).to.equal(2);
    expect(option.output).to.equal('unknown option --nmae\nusage: npm run admin -- companies:create --name <name> [--timezone <tz>] [--plan <plan>] [--json]');
    const extra = await runAdminCommand({ store, keyring }, ['companies:list', 'everything']);
    expect(extra).to.deep.equal({ exitCode: 2, output: 'unexpected argument everything\nusage: npm run admin -- companies:list [--json]' });
    const missing = await runAdminCommand({ store, keyring }, ['keys:revoke']);
    expect(missing).to.deep.equal({ exitCode: 2, output: 'missing <apiKeyId>\nusage: npm run admin -- keys:revoke [--json] <apiKeyId>' });
    const noName = await runAdminCommand({ store, keyring }, ['companies:create']);
    expect(noName.output).to.match(/^--name is required\nusage: npm run admin -- companies:create/);
  });

  it("lists its commands on --help, and one command's options on <command> --help", async () => {
    const nothing = await runAdminCommand({ store, keyring }, []);
    expect(nothing.exitCode, 'no command is a usage error, as a missing argument is for every tool').to.equal(2);
    expect(nothing.output).to.match(/^missing <command>\n\nusage: npm run admin -- <command> \[options\] \[--json\]\n/);
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const help = await runAdminCommand({ store, keyring }, argv);
      expect(help.exitCode, argv.join(' ')).to.equal(0);
      expect(help.output).to.match(/^usage: npm run admin -- <command> \[options\] \[--json\]\n/);
      expect(help.output).to.include('\n  companies:create --name <name> [--timezone <tz>] [--plan <plan>] [--json]\n      creates a company\n');
      expect(help.output).to.include('\n  signing-keys:retire [--json] <kid>\n');
    }
    const one = await runAdminCommand({ store, keyring }, ['members:add', '--help']);
    expect(one.exitCode).to.equal(0);
    expect(one.output).to.match(/^usage: npm run admin -- members:add --company <companyId> --email <email> --name <name> \[--role owner\|admin\|member\] \[--json\]\n/);
    expect(one.output).to.match(/\n  --role owner\|admin\|member +their role \(default member\)\n/);
    // --help wins over a mistake elsewhere on the line, and runs nothing.
    expect((await runAdminCommand({ store, keyring }, ['companies:create', '--nmae', 'x', '-h'])).exitCode).to.equal(0);
    expect(await store.companies.find({})).to.deep.equal([]);
  });

  it('refuses a time zone, an email or an id of the wrong form, naming the option and the rule', async () => {
    const refused = async (...argv: string[]) => {
      const result = await runAdminCommand({ store, keyring }, argv);
      expect(result.exitCode, result.output).to.equal(2);
      return result.output.split('\n')[0];
    };
    expect(await refused('companies:create', '--name', 'Acme', '--timezone', 'Mars/Olympus_Mons')).to.equal(
      `--timezone must be an IANA time zone such as Europe/Berlin or UTC, got "Mars/Olympus_Mons" (the names: Intl.supportedValuesOf('timeZone'))`,
    );
    expect(await refused('companies:create', '--name', 'Acme', '--timezone', '+01:00')).to.match(/^--timezone must be an IANA time zone/);
    expect(await refused('companies:create', '--name', ' ')).to.equal('--name must not be empty');
    const { companyId } = await json(store, 'companies:create', '--name', 'Acme', '--timezone', 'europe/berlin');
    expect((await store.companies.findOne({ id: companyId }))!.timezone).to.equal('Europe/Berlin');
    const zulu = await json(store, 'companies:create', '--name', 'Zulu', '--timezone', ' UTC ');
    expect((await store.companies.findOne({ id: zulu.companyId }))!.timezone).to.equal('UTC');
    expect(await refused('members:add', '--company', companyId, '--email', 'ada-at-acme', '--name', 'Ada')).to.equal('--email must be an email address (name@example.com), got "ada-at-acme"');
    expect(await refused('members:add', '--company', 'acme', '--email', 'ada@acme.test', '--name', 'Ada')).to.equal('--company must be a company id (cmp_ and 24 hex digits), got "acme"');
    expect(await refused('members:list', '--company', 'cmp_nope')).to.equal('--company must be a company id (cmp_ and 24 hex digits), got "cmp_nope"');
    expect(await refused('keys:revoke', 'igw_secret')).to.equal('<apiKeyId> must be an API key id (key_ and 24 hex digits), got "igw_secret"');
    expect(await refused('signing-keys:retire', 'sig_nope')).to.equal('<kid> must be a signing key id (sig_ and 24 hex digits), got "sig_nope"');
    expect(await json(store, 'members:list', '--company', companyId)).to.deep.equal([]);
  });
});

describe('the admin tool (npm run admin)', function () {
  this.timeout(240_000);

  it('answers --help on stdout and refuses a mistyped line on stderr, without the configuration or the store', async () => {
    // A configuration that would not load: help and refusals come first, so they do not need one.
    const env = { PORT: 'not-a-port', DATA_DIR: '/nonexistent/admin-help' };
    const help = await runCommand(['--import', 'tsx', 'scripts/admin.ts', '--help'], env);
    expect(help.code, help.stderr).to.equal(0);
    expect(help.stdout).to.match(/^usage: npm run admin -- <command> \[options\] \[--json\]\n[\s\S]*\n  keys:create --company <companyId>/);
    expect(help.stderr).to.equal('');
    const one = await runCommand(['--import', 'tsx', 'scripts/admin.ts', 'keys:list', '--help'], env);
    expect(one.code).to.equal(0);
    expect(one.stdout).to.match(/^usage: npm run admin -- keys:list \[--company <companyId>\] \[--json\]\n/);
    const unknown = await runCommand(['--import', 'tsx', 'scripts/admin.ts', 'keys:list', '--all'], env);
    expect(unknown).to.deep.include({ code: 2, stdout: '', stderr: 'unknown option --all\nusage: npm run admin -- keys:list [--company <companyId>] [--json]\n' });
    const zone = await runCommand(['--import', 'tsx', 'scripts/admin.ts', 'companies:create', '--name', 'A', '--timezone', 'CEST'], env);
    expect(zone.code).to.equal(2);
    expect(zone.stderr).to.match(/^--timezone must be an IANA time zone such as Europe\/Berlin or UTC, got "CEST"/);
  });

  it('works with the gateway stopped, and through a running gateway on the same DATA_DIR', async () => {
    const { dir, cleanup } = await tempDir();
    const admin = (...argv: string[]) => runCommand(['--import', 'tsx', 'scripts/admin.ts', ...argv], { DATA_DIR: dir });
    try {
      const created = await admin('companies:create', '--name', 'Offline Co', '--json');
      expect(created.code, created.stderr).to.equal(0);
      const { companyId } = JSON.parse(created.stdout);
      expect((await admin('members:add', '--company', companyId, '--email', 'o@off.test', '--name', 'O')).code).to.equal(0);

      const running = await spawnGateway({ PORT: '0', DATA_DIR: dir });
      try {
        const key = await admin('keys:create', '--company', companyId, '--email', 'o@off.test', '--json');
        expect(key.code, key.stderr).to.equal(0);
        const { key: apiKey } = JSON.parse(key.stdout);
        // The running gateway made the key itself, so it is usable at once.
        const users = await call({ url: running.url, apiKey }, 'GET', '/v1/users');
        expect(users.status).to.equal(200);
        expect(users.body.data.map((u: any) => u.email)).to.deep.equal(['o@off.test']);
        // The audit line is written before the command's answer; through the pipe it may arrive after it.
        expect(await waitForStdout(running, '"command":"keys:create"')).not.to.include(apiKey);
      } finally {
        running.child.kill('SIGTERM');
        await running.exited;
      }
      const listed = await admin('keys:list');
      expect(listed.stdout).to.include(`companyId: ${companyId}`);
    } finally {
      await cleanup();
    }
  });

  it('waits for a gateway that holds DATA_DIR but has not opened its socket yet (it is starting), and says so when it never does', async () => {
    const { dir, cleanup } = await tempDir();
    // This process holds the lock, as a starting gateway does before its store is open and its socket listens.
    await fs.writeFile(path.join(dir, LOCK_FILE), `${process.pid}\n`);
    const socketPath = path.join(dir, ADMIN_SOCKET);
    const late = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ exitCode: 0, output: 'answered by the gateway' })));
    });
    try {
      const asked = runCommand(['--import', 'tsx', 'scripts/admin.ts', 'companies:list'], { DATA_DIR: dir });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await new Promise<void>((resolve) => late.listen(socketPath, () => resolve()));
      const answered = await asked;
      expect(answered, answered.stderr).to.deep.include({ code: 0, stdout: 'answered by the gateway\n', stderr: '' });

      await new Promise<void>((resolve) => late.close(() => resolve()));
      const error = await sendAdminCommand(dir, ['companies:list'], [], 300).then(
        () => null,
        (failed: Error) => failed.message,
      );
      expect(error).to.equal(`the gateway holding DATA_DIR ${dir} did not open its admin socket (${socketPath}) within 0.3 s; is it still starting? Try again once it logs that it listens`);
    } finally {
      await cleanup();
    }
  });
});
