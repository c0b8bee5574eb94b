import { pgliteTemplate } from '../../helpers/gateway.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../engine/config/config.ts';
import { resolveAction, resolveAppVersion } from '../../../engine/core/definitions/resolve.ts';
import { startGateway } from '../../../engine/gateway.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';
import { eventually, WITHIN_MS } from '../../support/eventually.ts';

const API_KEY = 'hot-reload-spec-key-0123456789';
/** Generous: a reload takes milliseconds, but CI machines stall. Polling ends as soon as the condition holds. */

interface Answer {
  status: number;
  /** The JSON a client sees, read loosely as a client would. */
  body: any;
}

/** The real gateway on port 0, over temporary DATA_DIR and DEFINITIONS_DIR. */
async function startOn(definitionsDir: string) {
  const data = await tempDir('gw-data-');
  const config = loadConfig({
    ...pgliteTemplate(),
    DATA_DIR: data.dir,
    DEFINITIONS_DIR: definitionsDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: API_KEY,
    LOG_LEVEL: 'silent',
  });
  const gateway = await startGateway(config, createLogger('silent'));
  return {
    gateway,
    get: async (route: string, withKey = true): Promise<Answer> => {
      const response = await fetch(`http://127.0.0.1:${gateway.port}${route}`, {
        headers: withKey ? { authorization: `Bearer ${API_KEY}` } : {},
      });
      const answer = { status: response.status, body: await response.json() };
      expectDocumentedIfDescribed('GET', route, answer);
      return answer;
    },
    stop: async () => {
      await gateway.stop();
      await data.remove();
    },
  };
}


async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  expect(text).to.contain(from);
  await fs.writeFile(file, text.replace(from, to));
}

describe('hot reload through the running gateway', function () {
  this.timeout(WITHIN_MS * 3);
  let defs: Awaited<ReturnType<typeof tempDir>>;
  let gw: Awaited<ReturnType<typeof startOn>>;
  let listLists: string;

  beforeEach(async () => {
    defs = await tempDir('gw-defs-');
    await copyValid(defs.dir);
    listLists = path.join(defs.dir, 'acme/versions/1/actions/list-lists.yaml');
  });
  afterEach(async () => {
    await gw?.stop();
    await defs.remove();
  });

  it('serves a valid change: a new app and an edited action, with a new content hash', async () => {
    gw = await startOn(defs.dir);
    const before = await gw.get('/v2/definitions/status');
    expect(before.status).to.equal(200);
    expect(before.body.data).to.include({ appCount: 1 });
    expect(before.body.data.errors).to.deep.equal([]);
    expect((await gw.get('/ready', false)).status).to.equal(200);

    await fs.cp(path.join(defs.dir, 'acme'), path.join(defs.dir, 'beta'), { recursive: true });
    await fs.writeFile(path.join(defs.dir, 'beta/app.yaml'), 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await edit(listLists, 'name: List lists', 'name: List mailing lists');

    const edited = () => resolveAction(resolveAppVersion(gw.gateway.services.definitions.current(), { id: 'acme' }, 'published'), { id: 'list-lists' }).name;
    // The new app and the edit may be read by different reloads (the edit written after one read the folder): wait for both.
    const after = await eventually(
      () => gw.get('/v2/definitions/status'),
      (a) => a.body.data.appCount === 2 && a.body.data.hash !== before.body.data.hash && a.body.data.lastAttempt?.hash === a.body.data.hash && edited() === 'List mailing lists',
      'status shows the second app and the edit serves',
    );
    expect(after.body.data.apps.map((a: { id: string }) => a.id)).to.deep.equal(['acme', 'beta']);
    expect(edited()).to.equal('List mailing lists');
  });

  it('rejects an invalid change: the last good snapshot keeps serving and status shows the located errors', async () => {
    gw = await startOn(defs.dir);
    const good = gw.gateway.services.definitions.current();

    await edit(listLists, 'method: GET', 'method: FETCH');
    const rejected = await eventually(
      () => gw.get('/v2/definitions/status'),
      (a) => a.body.data.errors.length > 0,
      'status shows the error',
    );
    expect(rejected.body.data.errors).to.deep.equal([
      {
        file: 'acme/versions/1/actions/list-lists.yaml',
        line: 5,
        column: 9,
        code: 'SCHEMA_ENUM',
        message: 'method must be one of GET, POST, PUT, PATCH, DELETE (got "FETCH")',
      },
    ]);
    expect(rejected.body.data.hash).to.equal(good.hash);
    expect(rejected.body.data.lastAttempt).to.include({ ok: false });
    expect(gw.gateway.services.definitions.current()).to.equal(good);
    expect((await gw.get('/ready', false)).status).to.equal(200);

    await edit(listLists, 'method: FETCH', 'method: GET');
    const fixed = await eventually(() => gw.get('/v2/definitions/status'), (a) => a.body.data.errors.length === 0, 'errors clear once fixed');
    expect(fixed.body.data.hash).to.equal(good.hash);
  });

  it('lets a request in flight finish on the snapshot it started with', async () => {
    gw = await startOn(defs.dir);
    const registry = gw.gateway.services.definitions;
    // What a run does first: take the live snapshot once, then resolve everything from it.
    const held = registry.current();
    const heldVersion = resolveAppVersion(held, { slug: 'acme-crm' }, 'published');

    await edit(listLists, 'name: List lists', 'name: Lists, renamed mid-request');
    await fs.rm(path.join(defs.dir, 'acme/versions/1/actions/create-contact.yaml'));
    const result = await registry.reload('SIGHUP');
    expect(result.ok).to.equal(true);

    expect(registry.current()).to.not.equal(held);
    expect(resolveAction(resolveAppVersion(registry.current(), { id: 'acme' }, '1'), { id: 'list-lists' }).name).to.equal('Lists, renamed mid-request');
    // The request's snapshot is untouched: same hash, same actions, same names.
    expect(resolveAction(heldVersion, { id: 'list-lists' }).name).to.equal('List lists');
    expect([...heldVersion.actions.keys()].sort()).to.deep.equal(['create-contact', 'list-contacts', 'list-lists']);
    expect(held.hash).to.not.equal(registry.current().hash);
  });

  it('starts not ready when the definitions are invalid, and becomes ready once they are fixed', async () => {
    await edit(listLists, 'method: GET', 'method: FETCH');
    gw = await startOn(defs.dir);
    const ready = await gw.get('/ready', false);
    expect(ready.status).to.equal(503);
    expect(ready.body.error.code).to.equal('NOT_READY');
    expect(ready.body.error.message).to.match(/^definitions: 1 problem in the app definitions \(see GET \/v2\/definitions\/status or npm run validate\)$/);
    const status = await gw.get('/v2/definitions/status');
    expect(status.body.data).to.include({ hash: null, loadedAt: null, appCount: 0 });
    expect(status.body.data.errors.map((e: { code: string }) => e.code)).to.deep.equal(['SCHEMA_ENUM']);

    await edit(listLists, 'method: FETCH', 'method: GET');
    await eventually(() => gw.get('/ready', false), (a) => a.status === 200, '/ready turns 200');
  });

  it('starts not ready, without hanging, when DEFINITIONS_DIR does not exist', async () => {
    gw = await startOn(path.join(defs.dir, 'missing'));
    const ready = await gw.get('/ready', false);
    expect(ready.status).to.equal(503);
    const status = await gw.get('/v2/definitions/status');
    expect(status.body.data.errors.map((e: { code: string }) => e.code)).to.deep.equal(['DEFINITIONS_DIR_MISSING']);
  });

  it('shows status only with an API key', async () => {
    gw = await startOn(defs.dir);
    const answer = await gw.get('/v2/definitions/status', false);
    expect(answer.status).to.equal(401);
    expect(answer.body.error.code).to.equal('UNAUTHORIZED');
  });
});
