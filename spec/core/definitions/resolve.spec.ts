import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { resolveAction, resolveAppVersion } from '../../../engine/core/definitions/resolve.ts';
import type { DefinitionsSnapshot } from '../../../engine/core/definitions/snapshot.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

/**
 * Versions: acme has 1 (published), 2, and a draft whose list-lists action is
 * renamed; beta has only a draft, so `published` has nothing to resolve to.
 */
describe('version and action resolution', () => {
  let snapshot: DefinitionsSnapshot;
  let tmp: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    tmp = await tempDir('defs-resolve-');
    await copyValid(tmp.dir);
    const v1 = path.join(tmp.dir, 'acme/versions/1');
    await fs.cp(v1, path.join(tmp.dir, 'acme/versions/2'), { recursive: true });
    await fs.cp(v1, path.join(tmp.dir, 'acme/versions/draft'), { recursive: true });
    const draftAction = path.join(tmp.dir, 'acme/versions/draft/actions/list-lists.yaml');
    await fs.writeFile(draftAction, (await fs.readFile(draftAction, 'utf8')).replace('name: List lists', 'name: List mailing lists'));
    await fs.cp(path.join(tmp.dir, 'acme/versions/1'), path.join(tmp.dir, 'beta/versions/draft'), { recursive: true });
    await fs.writeFile(path.join(tmp.dir, 'beta/app.yaml'), 'id: beta\nslug: beta-app\nname: Beta\n');
    const result = await loadDefinitions(tmp.dir);
    expect(result.problems).to.deep.equal([]);
    snapshot = result.snapshot!;
  });
  after(() => tmp.remove());

  it('resolves published, draft and numbered versions by app id (v1) and slug (universal)', () => {
    expect(resolveAppVersion(snapshot, { id: 'acme' }, 'published').version).to.equal(1);
    expect(resolveAppVersion(snapshot, { slug: 'acme-crm' }, 'published').version).to.equal(1);
    expect(resolveAppVersion(snapshot, { id: 'acme' }, '2').version).to.equal(2);
    expect(resolveAppVersion(snapshot, { slug: 'acme-crm' }, 'draft').version).to.equal('draft');
    const draft = resolveAppVersion(snapshot, { id: 'acme' }, 'draft');
    expect(resolveAction(draft, { id: 'list-lists' }).name).to.equal('List mailing lists');
    expect(resolveAction(resolveAppVersion(snapshot, { id: 'acme' }, '1'), { slug: 'list-lists' }).name).to.equal('List lists');
  });

  it('answers APP_NOT_FOUND (404) for an unknown app, and does not mix ids and slugs', () => {
    for (const ref of [{ id: 'nope' }, { id: 'acme-crm' }, { slug: 'acme' }]) {
      const error = thrown(() => resolveAppVersion(snapshot, ref, 'published'));
      expect([error.code, error.status]).to.deep.equal(['APP_NOT_FOUND', 404]);
    }
    expect(thrown(() => resolveAppVersion(snapshot, { slug: 'acme' }, 'published')).message).to.equal('no app with slug "acme"; similar: acme-crm (GET /v2/universal/apps lists them)');
    expect(thrown(() => resolveAppVersion(snapshot, { slug: 'zzz' }, 'published')).message).to.equal('no app with slug "zzz" (GET /v2/universal/apps lists them)');
  });

  it('answers APP_VERSION_NOT_FOUND (404) for a version that is not there, naming the ones that are', () => {
    for (const version of ['3', '0', '01', 'latest', '']) {
      const error = thrown(() => resolveAppVersion(snapshot, { id: 'acme' }, version));
      expect([error.code, error.status]).to.deep.equal(['APP_VERSION_NOT_FOUND', 404]);
    }
    expect(thrown(() => resolveAppVersion(snapshot, { id: 'acme' }, '3')).message).to.equal(
      'app "acme" has no version "3" (versions: 1, 2, draft, published is 1); use published, draft or a version number',
    );
    expect(thrown(() => resolveAppVersion(snapshot, { id: 'beta' }, 'published')).message).to.equal(
      'app "beta" has no published version yet (versions: draft)',
    );
  });

  it('answers ACTION_NOT_FOUND (404) for an action the version does not have', () => {
    const version = resolveAppVersion(snapshot, { id: 'acme' }, '2');
    const error = thrown(() => resolveAction(version, { slug: 'delete-everything' }));
    expect([error.code, error.status]).to.deep.equal(['ACTION_NOT_FOUND', 404]);
    expect(error.message).to.match(/^acme version 2 has no action with slug "delete-everything" \(it has [a-z-]+(, [a-z-]+)*\)$/);
    expect(error.toBody()).to.deep.equal({ success: false, error: { code: 'ACTION_NOT_FOUND', message: error.message } });
  });
});

describe('the snapshot a run consumes', () => {
  let snapshot: DefinitionsSnapshot;
  before(async () => {
    const tmp = await tempDir('defs-snapshot-');
    await copyValid(tmp.dir);
    snapshot = (await loadDefinitions(tmp.dir)).snapshot!;
    await tmp.remove();
  });

  it('resolves auth references to objects and fills implied defaults', () => {
    const version = resolveAppVersion(snapshot, { id: 'acme' }, 'published');
    expect(version.api.auths.map((a) => [a.id, a.type])).to.deep.equal([['api-key', 'ApiKey']]);
    expect(version.api.retry).to.deep.equal({ delayMs: 500, multiplier: 2, maxAttempts: 4, retryAfterCapMs: 60_000, budgetMs: 60_000 });
    expect(version.api.timeoutMs, "unset: OUTBOUND_TOTAL_TIMEOUT_MS decides").to.equal(undefined);
    expect(version.api.pagination).to.deep.equal({ type: 'Cursor', location: 'Query', key: 'cursor' });
  });

  it('attaches compiled expressions with the file and line they were written at', async () => {
    const action = resolveAction(resolveAppVersion(snapshot, { id: 'acme' }, '1'), { id: 'list-contacts' });
    expect(action.response!.at).to.deep.equal({ file: 'acme/versions/1/actions/list-contacts.yaml', line: 31, column: 3 });
    const result = await action.response!.expression.evaluate({ status: 404, headers: {}, body: null, action: {}, arguments: {} });
    expect(result).to.deep.equal({ success: true, data: [], meta: {} });
    const tags = action.arguments.find((a) => a.key === 'tags')!;
    expect(await tags.mapper!.expression.evaluate({ value: 'VIP', arguments: {} })).to.equal('vip');
    expect([action.method, action.path, action.operation]).to.deep.equal(['GET', '/lists/:listId/contacts', 'list']);
  });

  it('is frozen: a request cannot change what other requests see', () => {
    const action = resolveAction(resolveAppVersion(snapshot, { id: 'acme' }, '1'), { id: 'list-contacts' });
    expect(Object.isFrozen(snapshot)).to.equal(true);
    expect(Object.isFrozen(action)).to.equal(true);
    expect(Object.isFrozen(action.arguments)).to.equal(true);
    expect(Object.isFrozen(action.definition.arguments![0])).to.equal(true);
  });
});
