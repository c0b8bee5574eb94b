import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { findCaseFiles } from '../../../engine/authoring/definition-tests.ts';
import { parseCaseFile } from '../../../engine/authoring/case-file.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { resolveAction, resolveAppVersion } from '../../../engine/core/definitions/resolve.ts';
import type { ActionEntry, AppVersion, DefinitionsSnapshot } from '../../../engine/core/definitions/snapshot.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const schema = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', name), 'utf8'));

/** What a mapping receives: the raw response plus what was sent. */
function run(action: ActionEntry, response: { status: number; headers?: object; body?: unknown }, args: object = {}) {
  return action.response!.expression.evaluate({
    headers: {},
    body: null,
    ...response,
    action: { id: action.id, slug: action.slug, operation: action.operation, query: {}, body: {} },
    arguments: args,
  });
}

describe('bundled apps (definitions/)', () => {
  let snapshot: DefinitionsSnapshot;
  let versions: AppVersion[];
  const action = (app: string, id: string) => resolveAction(resolveAppVersion(snapshot, { id: app }, 'published'), { id });

  before(async () => {
    const result = await loadDefinitions(path.join(ROOT, 'definitions'));
    expect(result.problems, 'npm run validate must pass on definitions/').to.deep.equal([]);
    snapshot = result.snapshot!;
    versions = [...snapshot.apps.values()].flatMap((app) => [...app.versions.values()]);
  });

  it('include GitHub, Slack, Stripe and a CRM (HubSpot)', () => {
    expect([...snapshot.apps.keys()].sort()).to.include.members(['github', 'hubspot', 'slack', 'stripe']);
  });

  it('together use every argument property, data type, location and list type', () => {
    const args = versions.flatMap((v) => [...v.api.arguments, ...[...v.auths.values()].flatMap((a) => a.arguments), ...[...v.actions.values()].flatMap((a) => a.arguments)]);
    const written = versions.flatMap((v) => [...v.actions.values()].flatMap((a) => a.definition.arguments ?? []));
    const used = new Set(written.flatMap((a) => Object.keys(a)));
    expect(Object.keys(schema('argument.schema.json').properties).filter((p) => !used.has(p)), 'argument properties never used').to.deep.equal([]);
    expect(new Set(args.map((a) => a.dataType))).to.have.all.keys('String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'List');
    expect(new Set(args.map((a) => a.location).filter(Boolean))).to.have.all.keys('Query', 'Body', 'Param', 'Header');
    expect(new Set(args.map((a) => a.list?.type).filter(Boolean))).to.have.all.keys('Fixed', 'Lookup', 'Country', 'Currency');
    expect(args.some((a) => a.multipleValues?.delimiter) && args.some((a) => a.multipleValues && !a.multipleValues.delimiter)).to.equal(true);
  });

  it('use OAuth 2.0 and API-key auths, arguments on APIs and auths, pagination (app cursors and Link headers), and a delete', () => {
    const authTypes = new Set(versions.flatMap((v) => [...v.auths.values()].map((a) => a.type)));
    expect(authTypes).to.include.keys('OAuth2AuthorizationCode', 'ApiKey');
    expect(versions.some((v) => v.api.arguments.length > 0)).to.equal(true);
    expect(versions.some((v) => [...v.auths.values()].some((a) => a.arguments.length > 0))).to.equal(true);
    // Salesforce pages with NextUrl per action (nextRecordsUrl), not at the API level.
    const paged = (type: string) => versions.filter((v) => v.api.pagination?.type === type).map((v) => v.app.id);
    expect(paged('Cursor')).to.include.members(['hubspot', 'slack', 'stripe']);
    expect(paged('NextUrl')).to.include.members(['github', 'shopify']);
    expect(versions.flatMap((v) => [...v.actions.values()]).filter((a) => a.operation === 'delete')).to.have.length.greaterThan(2);
  });

  it('GitHub: a 404 (a private, mistyped or empty repository, a missing path) is a failure, never an empty folder', async () => {
    const listDirectory = action('github', 'list-directory');
    expect(await run(listDirectory, { status: 404, body: { message: 'This repository is empty.' } })).to.deep.equal({ success: false, data: [] });
    const found = await run(listDirectory, { status: 200, body: [{ name: 'README.md', path: 'README.md', type: 'file', size: 12, sha: 'abc' }] });
    expect(found.data).to.deep.equal([{ name: 'README.md', path: 'README.md', type: 'file', size: 12, sha: 'abc' }]);
  });

  it("GitHub: the OAuth auth is a GitHub App's user tokens: no OAuth scopes, expiring tokens refreshed, said in its description", () => {
    const auth = resolveAppVersion(snapshot, { id: 'github' }, 'published').auths.get('oauth2')!;
    const definition = auth.definition as { scopes?: string[]; refresh?: { enabled?: boolean }; description?: string };
    expect(auth.type).to.equal('OAuth2AuthorizationCode');
    expect(definition.scopes ?? []).to.deep.equal([]);
    expect(definition.refresh?.enabled).to.equal(true);
    expect(definition.description).to.match(/GitHub App/);
  });

  it('GitHub: one rate-limit declaration for every action (403 with x-ratelimit-remaining 0, wait from x-ratelimit-reset)', () => {
    const github = resolveAppVersion(snapshot, { id: 'github' }, 'published');
    expect(github.api.retry.when).to.not.equal(undefined);
    expect(github.api.retry.resetHeader).to.deep.equal({ name: 'x-ratelimit-reset', format: 'UnixSeconds' });
    for (const entry of github.actions.values()) expect(entry.definition.response ?? '', entry.id).to.not.include('tooManyRequests');
  });

  it('GitHub: list issues leaves pull requests out; the engine reads the next page from the Link header', async () => {
    const link = '<https://api.github.com/repositories/1/issues?state=open&page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"';
    const body = [
      { id: 1, number: 7, title: 'Bug', state: 'open', labels: [{ name: 'bug' }], user: { login: 'octocat' }, html_url: 'u', created_at: 'c', updated_at: 'u2' },
      { id: 2, number: 8, title: 'Fix', state: 'open', labels: [], user: { login: 'octocat' }, pull_request: { url: 'p' } },
    ];
    const result = await run(action('github', 'list-issues'), { status: 200, headers: { link }, body });
    expect(result.data.map((i: { number: number }) => i.number)).to.deep.equal([7]);
    expect(result.meta, 'the mapping leaves the cursor to the engine').to.equal(undefined);
    expect(action('github', 'list-issues').pagination?.definition).to.deep.equal({ type: 'NextUrl', from: 'LinkHeader' });
  });

  it('Stripe: the list object is unwrapped and the cursor is the last id when there is more', async () => {
    const body = { object: 'list', has_more: true, data: [{ id: 'cus_1', email: 'a@x.io', name: 'A', created: 1_700_000_000, address: { country: 'FR' } }, { id: 'cus_2', email: 'b@x.io', name: 'B', created: 1_700_000_100 }] };
    const result = await run(action('stripe', 'list-customers'), { status: 200, body });
    expect(result.data.map((c: { id: string }) => c.id)).to.deep.equal(['cus_1', 'cus_2']);
    expect(result.data[0]).to.include({ country: 'FR', createdAt: '2023-11-14T22:13:20.000Z' });
    expect(result.meta).to.deep.equal({ cursor: 'cus_2', authenticated: true });
  });

  it("Stripe: the search mapper escapes the name's quotes and backslashes, then wraps it in the query language", async () => {
    const name = action('stripe', 'search-customers').arguments.find((a) => a.key === 'name')!;
    expect(name.escape).to.equal(undefined);
    expect(await name.mapper!.expression.evaluate({ value: "O'Brien \\ co", arguments: {} })).to.equal("name~'O\\'Brien \\\\ co'");
  });

  it('HubSpot: properties nested in each result are lifted into the row; the cursor is paging.next.link\'s, decoded (sent encoded once)', async () => {
    const body = {
      results: [{ id: '51', createdAt: 'c', updatedAt: 'u', archived: false, properties: { email: 'bh@hubspot.com', firstname: 'Brian', lastname: 'Halligan' } }],
      paging: { next: { after: 'NTI1Cg%3D%3D', link: '?after=NTI1Cg%3D%3D' } },
    };
    const result = await run(action('hubspot', 'list-contacts'), { status: 200, body });
    expect(result.data).to.deep.equal([{ id: '51', createdAt: 'c', updatedAt: 'u', email: 'bh@hubspot.com', firstname: 'Brian', lastname: 'Halligan' }]);
    expect(result.meta.cursor).to.equal('NTI1Cg==');
  });

  it('HubSpot and GitHub deletes answer 204 without a body; HubSpot maps the id from the arguments, GitHub leaves it to the engine (its last path parameter)', async () => {
    expect(await run(action('hubspot', 'archive-contact'), { status: 204 }, { contactId: '51' })).to.deep.equal({ success: true, data: [{ id: '51', deleted: true }] });
    // The mapping alone; the run merges labelName in (delete-label.test.yaml answers [{ id: bug, deleted: true }]).
    expect(await run(action('github', 'delete-label'), { status: 204 }, { labelName: 'bug' })).to.deep.equal({ success: true, data: [{ deleted: true }] });
  });

  it('Slack: success comes from body.ok; an expired token asks for re-authentication; an empty next_cursor is no cursor', async () => {
    const listChannels = action('slack', 'list-channels');
    const last = await run(listChannels, { status: 200, body: { ok: true, channels: [{ id: 'C1', name: 'general', is_private: false }], response_metadata: { next_cursor: '' } } });
    expect(last).to.deep.equal({ success: true, data: [{ id: 'C1', name: 'general', isPrivate: false }], meta: { authenticated: true } });
    const expired = await run(listChannels, { status: 200, body: { ok: false, error: 'token_expired' } });
    expect(expired).to.deep.include({ success: false, meta: { authenticated: false } });
  });

  it("each has an API-level appError mapping over its provider's documented error body", () => {
    expect(versions.filter((v) => !v.api.appError).map((v) => `${v.app.slug} ${v.version}`)).to.deep.equal([]);
  });

  it("every failure case of their offline tests shows the meta.appError it produces (npm run test:definitions checks the values)", async () => {
    const dir = path.join(ROOT, 'definitions');
    const missing: string[] = [];
    let failures = 0;
    for (const found of await findCaseFiles(dir, snapshot)) {
      const parsed = parseCaseFile(fs.readFileSync(path.join(dir, found.file), 'utf8'));
      if (!parsed.ok) throw new Error(`${found.file} is not a valid case file`);
      for (const testCase of parsed.cases) {
        if (testCase.expect.kind !== 'envelope' || testCase.expect.success !== false) continue;
        failures++;
        const shown = testCase.expect.meta?.appError as Record<string, unknown> | undefined;
        if (!shown || typeof shown.status !== 'number' || typeof shown.code !== 'string' || typeof shown.message !== 'string') missing.push(`${found.file}: ${testCase.name}`);
      }
    }
    expect(failures).to.be.greaterThan(15);
    expect(missing).to.deep.equal([]);
  });
});
