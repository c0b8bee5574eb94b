import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/** Keeps the README's offline demo true: the demo upstream and the bundled demo-todos app, run as a new user would. */
describe('the offline demo (npm run demo:upstream + definitions/demo-todos)', function () {
  this.timeout(30_000);
  let upstream: ReturnType<typeof spawn>;
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let connectionId: string;
  const run = (action: string, args: Record<string, unknown>) =>
    call(gw, 'POST', `/v2/universal/apps/demo-todos/actions/${action}/run`, { body: { connectionId, arguments: args } });

  before(async () => {
    upstream = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo/upstream.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      upstream.stdout!.on('data', (chunk) => {
        out += String(chunk);
        const match = /on (http:\/\/127\.0\.0\.1:\d+)\/v1\/todos/.exec(out);
        if (match) resolve(match[1]!);
      });
      upstream.once('exit', (code) => reject(new Error(`the demo upstream exited with ${code}`)));
    });
    // The bundled app as it is, pointed at this run's port instead of 4010.
    const defs = await tempDir('igw-demo-');
    cleanup = defs.cleanup;
    await fs.cp(path.join(ROOT, 'definitions/demo-todos'), path.join(defs.dir, 'demo-todos'), { recursive: true });
    const api = path.join(defs.dir, 'demo-todos/versions/1/api.yaml');
    await fs.writeFile(api, (await fs.readFile(api, 'utf8')).replace('http://127.0.0.1:4010', url));
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'demo-todos', credentials: { token: 'demo-token' } } })).body.data.id;
  });
  after(async () => {
    upstream.kill('SIGTERM');
    await gw.stop();
    await cleanup();
  });

  it('lists, pages, creates and deletes as the README shows', async () => {
    const first = await run('list-todos', {});
    expect(first.body.success).to.equal(true);
    expect(first.body.data.map((t: { id: string }) => t.id)).to.deep.equal(['t1', 't2', 't3']);
    expect(first.body.data[0]).to.have.keys(['id', 'title', 'done', 'createdOn']);
    expect(first.body.meta.cursor).to.equal('3');
    const second = await run('list-todos', { cursor: '3' });
    expect(second.body.data.map((t: { id: string }) => t.id)).to.deep.equal(['t4', 't5']);
    expect(second.body.meta).not.to.have.property('cursor');
    const created = await run('create-todo', { title: 'Try the demo' });
    expect(created.body.success).to.equal(true);
    expect(created.body.data[0]).to.include({ title: 'Try the demo', done: false });
    const deleted = await run('delete-todo', { todoId: 't2' });
    expect(deleted.body).to.deep.include({ success: true, data: [{ id: 't2' }] });
    const gone = await run('get-todo', { todoId: 't2' });
    expect(gone.body.success).to.equal(false);
  });

  it('matches a title literally: the * the user types is escaped, not a wildcard', async () => {
    // Its own to-dos, so it holds whichever tests ran before it: as a wildcard, "5*" would match both.
    await run('create-todo', { title: 'Rate 5* hotels' });
    await run('create-todo', { title: 'Rate 50 hotels' });
    const literal = await run('list-todos', { titleContains: ' 5* ' });
    expect(literal.body.meta.action.query).to.deep.equal({ title_contains: '5\\*' });
    expect(literal.body.data.map((t: { title: string }) => t.title)).to.deep.equal(['Rate 5* hotels']);
    const plain = await run('list-todos', { titleContains: 'hotels' });
    expect(plain.body.data.map((t: { title: string }) => t.title)).to.deep.equal(['Rate 5* hotels', 'Rate 50 hotels']);
  });

  it('refuses the wrong token the app way: success false, the app status in meta.response', async () => {
    const wrong = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'demo-todos', credentials: { token: 'nope' } } })).body.data.id;
    const { status, body } = await call(gw, 'POST', '/v2/universal/apps/demo-todos/actions/list-todos/run', { body: { connectionId: wrong } });
    expect(status).to.equal(200);
    expect(body.success).to.equal(false);
    expect(body.meta.response.status).to.equal(401);
  });
});
