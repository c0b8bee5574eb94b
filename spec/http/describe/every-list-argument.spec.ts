import path from 'node:path';
import fs from 'node:fs/promises';
import { expect } from 'chai';
import { parseCaseFile, type DefinitionCase } from '../../../engine/authoring/case-file.ts';
import { findCaseFiles } from '../../../engine/authoring/definition-tests.ts';
import { CURSOR_ARGUMENT, optionsFromRows } from '../../../engine/core/arguments/index.ts';
import type { LookupList } from '../../../engine/core/definitions/generated/definition-types.ts';
import { loadDefinitions, type ActionEntry, type AppEntry, type AppVersion } from '../../../engine/core/definitions/index.ts';
import { versionLabel } from '../../../engine/core/definitions/layout.ts';
import { fakeValues } from '../../helpers/fake-values.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { RecordedNetwork } from '../../helpers/recorded-network.ts';

/**
 * The workflow builder's walk of every app in definitions/, whatever it
 * holds: for every version and action, the describe endpoint answers it with
 * every argument, and every List argument's options endpoint answers. A
 * Fixed, Country or Currency list answers its options; a Lookup runs its
 * lookup action through a connection of the app (made-up credentials)
 * against a fake upstream that answers the recorded response of a
 * successful offline case of that action, so a Lookup whose action has no
 * such case fails here, naming it. Everything goes through the real gateway.
 */
const DIR = path.join(ROOT, 'definitions');
const loaded = await loadDefinitions(DIR);
if (!loaded.ok) throw new Error(`definitions/ does not load (npm run validate): ${loaded.problems.length} problems`);
const snapshot = loaded.snapshot;

/** The cases of each action's .test.yaml, by `<app slug>@<version>/<action id>`, and the file they are in. */
const casesByAction = new Map<string, { file: string; cases: DefinitionCase[] }>();
for (const found of await findCaseFiles(DIR, snapshot)) {
  const parsed = parseCaseFile(await fs.readFile(path.join(DIR, found.file), 'utf8'));
  casesByAction.set(actionKey(found.version, found.actionId), { file: found.file, cases: parsed.ok ? parsed.cases : [] });
}

function actionKey(version: AppVersion, actionId: string): string {
  return `${version.app.slug}@${versionLabel(version.version)}/${actionId}`;
}

/** Numbered versions in order, then the draft. */
function versionsOf(app: AppEntry): AppVersion[] {
  return [...[...app.versions.entries()].sort(([a], [b]) => a - b).map(([, version]) => version), ...(app.draft ? [app.draft] : [])];
}

/**
 * The case of the lookup action the walk serves: one that succeeds with rows
 * on its first page (no cursor), preferably one whose responses are all 2xx
 * (not a 429 then a retry, which would wait out the retry policy).
 */
function successfulCase(version: AppVersion, actionId: string): DefinitionCase | undefined {
  const succeeding = (casesByAction.get(actionKey(version, actionId))?.cases ?? []).filter((c) => {
    const outcome = c.expect;
    return outcome.kind === 'envelope' && outcome.success !== false && Array.isArray(outcome.data) && outcome.data.length > 0 && !Object.hasOwn(c.arguments, CURSOR_ARGUMENT);
  });
  return succeeding.find((c) => c.exchanges.every((exchange) => exchange.response.status < 300)) ?? succeeding[0];
}

const apps = [...snapshot.apps.values()].sort((a, b) => a.slug.localeCompare(b.slug));

describe('every action and List argument of definitions/ through the describe and options endpoints', function () {
  this.timeout(120_000);
  const network = new RecordedNetwork();
  let gw: TestGateway;
  const connections = new Map<string, string>();

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR: DIR, EGRESS_ALLOW: '127.0.0.1/32' }, { dispatcher: network.agent });
  });
  after(async () => {
    await gw?.stop();
    await network.close();
  });

  /** A connection of the app with the case's auth: made-up credentials (the case's own values where it gives them). */
  async function connectionFor(app: AppEntry, version: AppVersion, lookupCase: DefinitionCase): Promise<string> {
    const auth = lookupCase.connection.auth !== undefined ? version.auths.get(lookupCase.connection.auth)! : version.api.auths[0]!;
    const key = `${app.slug}/${auth.id}/${JSON.stringify(lookupCase.connection.metadata)}`;
    const had = connections.get(key);
    if (had) return had;
    const given = lookupCase.connection.credentials;
    const credentials = fakeValues(auth.arguments, given);
    if (auth.type === 'OAuth2AuthorizationCode') credentials.accessToken = given.accessToken ?? 'walk-access-token';
    if (auth.type === 'OAuth2ClientCredentials') {
      credentials.clientId = given.clientId ?? credentials.clientId ?? 'walk-client-id';
      credentials.clientSecret = given.clientSecret ?? credentials.clientSecret ?? 'walk-client-secret';
    }
    const metadata = fakeValues(version.api.arguments, lookupCase.connection.metadata, false);
    const created = await call(gw, 'POST', '/v2/connections', { body: { appSlug: app.slug, authId: auth.id, name: 'describe walk', credentials, metadata } });
    expect(created.status, `connection to ${app.slug} with auth ${auth.id}: ${JSON.stringify(created.body)}`).to.equal(201);
    connections.set(key, created.body.data.id);
    return created.body.data.id;
  }

  it('walks at least one app, and GET /v2/universal/apps lists every app of definitions/', async () => {
    expect(apps.length).to.be.greaterThan(0);
    const listed = await call(gw, 'GET', '/v2/universal/apps');
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((app: { slug: string }) => app.slug)).to.deep.equal(apps.map((app) => app.slug));
  });

  for (const app of apps) {
    for (const version of versionsOf(app)) {
      const label = versionLabel(version.version);
      describe(`${app.slug} version ${label}`, () => {
        it('GET .../actions lists every action', async () => {
          const listed = await call(gw, 'GET', `/v2/universal/apps/${app.slug}/actions?version=${label}`);
          expect(listed.status).to.equal(200);
          expect(listed.body.data.map((a: { slug: string }) => a.slug)).to.deep.equal([...version.actions.values()].map((a) => a.slug).sort((a, b) => a.localeCompare(b)));
        });

        const actions = [...version.actions.values()].sort((a, b) => a.slug.localeCompare(b.slug));
        for (const action of actions) {
          const lists = action.arguments.filter((arg) => arg.list);
          const what = lists.length ? `and the options of ${lists.map((arg) => `${arg.key} (${arg.list!.type})`).join(', ')}` : '(no List argument)';
          it(`${action.slug}: described with every argument ${what}`, async () => {
            await walkAction(app, version, action);
          });
        }
      });
    }
  }

  async function walkAction(app: AppEntry, version: AppVersion, action: ActionEntry): Promise<void> {
    const label = versionLabel(version.version);
    const described = await call(gw, 'GET', `/v2/universal/apps/${app.slug}/actions/${action.slug}?version=${label}`);
    expect(described.status, JSON.stringify(described.body)).to.equal(200);
    expect(described.body.success).to.equal(true);
    const description = described.body.data[0];
    expect(description.slug).to.equal(action.slug);
    expect(description.arguments.map((arg: { key: string }) => arg.key)).to.deep.equal(action.arguments.map((arg) => arg.key));

    for (const arg of action.arguments) {
      if (!arg.list) continue;
      const where = `${app.slug} version ${label}, action ${action.slug}, argument ${arg.key}`;
      const { list: describedList } = description.arguments.find((a: { key: string }) => a.key === arg.key);
      expect(describedList.type, where).to.equal(arg.list.type);
      const optionsPath: string = describedList.optionsPath;
      expect(optionsPath).to.equal(`/v2/universal/apps/${app.slug}/actions/${action.slug}/arguments/${arg.key}/options?version=${label}`);

      if (arg.list.type !== 'Lookup') {
        const answer = await call(gw, 'POST', optionsPath, { body: {} });
        expect(answer.status, `${where}: ${JSON.stringify(answer.body)}`).to.equal(200);
        expect(answer.body.meta).to.include({ listType: arg.list.type, argument: arg.key, count: answer.body.data.length });
        expectOptions(answer.body.data, where);
        if (arg.list.type === 'Fixed') {
          expect(answer.body.data, where).to.deep.equal(arg.list.options.map((o) => ({ value: o.value, label: o.label ?? String(o.value) })));
        }
        continue;
      }

      const list = arg.list as LookupList;
      const lookupCase = successfulCase(version, list.action);
      const caseFile = casesByAction.get(actionKey(version, list.action))?.file ?? `${app.file.split('/')[0]}/versions/${label}/actions/${list.action}.test.yaml`;
      if (!lookupCase) {
        expect.fail(`${where} is a Lookup of ${list.action}, which has no successful offline case with rows on its first page in ${caseFile}: add one (npm run test:definitions)`);
      }
      const connectionId = await connectionFor(app, version, lookupCase);
      const given = Object.fromEntries(Object.entries(lookupCase.arguments).filter(([key]) => key !== CURSOR_ARGUMENT));
      const expected = optionsFromRows(lookupCase.expect.kind === 'envelope' ? (lookupCase.expect.data ?? []) : [], list);

      network.serve(lookupCase.exchanges);
      const answer = await call(gw, 'POST', optionsPath, { body: { connectionId, arguments: given } });
      expect(answer.status, `${where} (served ${caseFile} "${lookupCase.name}"): ${JSON.stringify(answer.body)}`).to.equal(200);
      expect(answer.body.meta).to.include({ listType: 'Lookup', argument: arg.key, count: expected.length });
      expectOptions(answer.body.data, where);
      expect(answer.body.data, where).to.deep.equal(expected);

      network.serve(lookupCase.exchanges);
      const search = String(expected[0]!.label);
      const searched = await call(gw, 'POST', optionsPath, { body: { connectionId, arguments: given, search } });
      expect(searched.status, `${where}, search ${JSON.stringify(search)}: ${JSON.stringify(searched.body)}`).to.equal(200);
      expect(searched.body.meta.searched, where).to.equal(list.searchArgument !== undefined ? 'app' : 'page');
      expectOptions(searched.body.data, where);
      expect(network.unanswered, where).to.deep.equal([]);
    }
  }
});

/** Options a builder can show: non-empty, each a { value, label } with a scalar value and a string label. */
function expectOptions(options: unknown, where: string): void {
  expect(options, where).to.be.an('array').that.is.not.empty;
  for (const option of options as Record<string, unknown>[]) {
    expect(Object.keys(option).sort(), where).to.deep.equal(['label', 'value']);
    expect(['string', 'number', 'boolean'], where).to.include(typeof option.value);
    expect(option.label, where).to.be.a('string').that.is.not.empty;
  }
}
