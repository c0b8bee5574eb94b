import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildOutboundRequest, evaluateMapperPlainly, type ArgumentDependencies, type HostValues, type ListOption } from '../../../engine/core/arguments/index.ts';
import { parseCaseFile } from '../../../engine/authoring/case-file.ts';
import { findCaseFiles, Harness, type CaseRun } from '../../../engine/authoring/definition-tests.ts';
import type { SentRequest } from '../../../engine/authoring/case-network.ts';
import { DefinitionsLoader, type LoadResult } from '../../../engine/core/definitions/loader.ts';
import type { ActionEntry, AppVersion, ArgumentEntry, AuthEntry, DefinitionsSnapshot } from '../../../engine/core/definitions/snapshot.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/index.ts';
import { decodeCursor } from '../../../engine/core/pagination/index.ts';
import { planOf } from '../../../engine/core/plan/index.ts';
import { loadGoldenApps, readGoldenFiles, versionOf } from '../../support/argument-cases.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DEFINITIONS = path.join(ROOT, 'definitions');

/**
 * The run plan (engine/core/plan/) against the reference interpretation
 * of the definitions (buildOutboundRequest and the functions it calls): the
 * same definitions and the same input must give the same outbound request
 * on the wire and the same envelope, or the same error, problem for problem.
 *
 *   1. every case of every bundled action (definitions/**\/*.test.yaml, what
 *      `npm run test:definitions` runs), run whole through runAction both ways;
 *   2. every golden argument case (spec/fixtures/arguments/golden/);
 *   3. arguments made up for every bundled action: defaults only, wrong
 *      types, missing required ones, hidden ones set, list values off the
 *      list, dates good and bad, lists of values with bad elements, nested
 *      fields unknown, unknown keys, arguments that are not an object.
 */
describe('run plan: differential against the reference interpretation', function () {
  this.timeout(300_000);

  describe('every bundled action case, run both ways', () => {
    let loaded: LoadResult;
    let harness: Harness;
    before(async () => {
      loaded = await new DefinitionsLoader().loadDirectory(DEFINITIONS);
      expect(loaded.ok, 'definitions/ must load').to.equal(true);
      harness = await Harness.open(DEFINITIONS, loaded);
    });
    after(async () => harness?.close());

    it('send the same requests and answer the same envelopes or errors', async () => {
      const snapshot = loaded.snapshot!;
      const files = await findCaseFiles(DEFINITIONS, snapshot);
      let cases = 0;
      let requests = 0;
      for (const found of files) {
        const parsed = parseCaseFile(await fs.readFile(path.join(DEFINITIONS, found.file), 'utf8'));
        if (!parsed.ok) throw new Error(`${found.file} is not a valid case file`);
        for (const testCase of parsed.cases) {
          const where = `${found.file}:${testCase.line} (${testCase.name})`;
          const planned = await harness.runOnce(found.version, found.actionId, testCase, 'plan');
          const reference = await harness.runOnce(found.version, found.actionId, testCase, 'reference');
          if (Array.isArray(planned) || Array.isArray(reference)) throw new Error(`${where}: the case cannot run`);
          expect(planned.network.sent.map(onTheWire), `${where}: the requests sent`).to.deep.equal(reference.network.sent.map(onTheWire));
          expect(comparable(planned, harness), `${where}: the outcome`).to.deep.equal(comparable(reference, harness));
          cases++;
          requests += planned.network.sent.length;
        }
      }
      // The bundled apps have hundreds of cases; a folder that lost them would make this test pass with nothing compared.
      expect(cases).to.be.greaterThan(300);
      expect(requests).to.be.greaterThan(300);
    });
  });

  describe('every golden argument case, built both ways', () => {
    const golden = readGoldenFiles();
    const snapshot = loadGoldenApps(golden);
    for (const [app, file] of golden) {
      it(`${app}: ${file.cases.length} cases`, async () => {
        const version = versionOf(snapshot, app);
        const deps: ArgumentDependencies = {
          evaluateMapper: evaluateMapperPlainly,
          lookupOptions: async (list) => file.lookups?.[list.action] ?? [],
        };
        for (const c of file.cases) {
          const action = version.actions.get(c.action)!;
          const auth = c.auth ? version.auths.get(c.auth) : version.api.auths[0];
          await sameBuild(version, action, auth, c.host, c.arguments ?? {}, deps, `${app}: ${c.name}`);
        }
      });
    }
  });

  describe('made-up arguments for every bundled action, built both ways', () => {
    let snapshot: DefinitionsSnapshot;
    before(async () => {
      const loaded = await new DefinitionsLoader().loadDirectory(DEFINITIONS);
      snapshot = loaded.snapshot!;
    });

    it('give the same request or the same problems', async () => {
      const deps: ArgumentDependencies = {
        evaluateMapper: (expression, input) => evaluateGuarded(expression as never, input),
        lookupOptions: async (list) => lookupAnswer(list.action),
      };
      let builds = 0;
      let refused = 0;
      for (const app of snapshot.apps.values()) {
        for (const version of [...app.versions.values(), ...(app.draft ? [app.draft] : [])]) {
          for (const auth of version.api.auths) {
            const host: HostValues = { connection: hostValues(version, auth), metadata: { tenant: 't-1' } };
            for (const action of version.actions.values()) {
              for (const [name, args] of madeUpArguments(action)) {
                const outcome = await sameBuild(version, action, auth, host, args, deps, `${app.slug} ${version.version} ${action.id} (${auth.id}): ${name}`);
                builds++;
                if (outcome === 'refused') refused++;
              }
            }
          }
        }
      }
      // Both kinds of outcome are compared in bulk, not only one.
      expect(builds).to.be.greaterThan(2000);
      expect(refused).to.be.greaterThan(builds / 4);
      expect(builds - refused).to.be.greaterThan(builds / 10);
    });

    it('give the same request for a connection that lacks its host values, and one whose base URL comes from APP_BASE_URLS', async () => {
      const deps: ArgumentDependencies = { evaluateMapper: evaluateMapperPlainly, lookupOptions: async (list) => lookupAnswer(list.action) };
      for (const app of snapshot.apps.values()) {
        for (const version of app.versions.values()) {
          const auth = version.api.auths[0];
          for (const action of version.actions.values()) {
            await sameBuild(version, action, auth, { connection: {} }, {}, deps, `${app.slug} ${action.id}: no host values`);
            await sameBuild(version, action, auth, { connection: hostValues(version, auth) }, {}, deps, `${app.slug} ${action.id}: APP_BASE_URLS`, 'http://127.0.0.1:4400/stand-in/');
          }
        }
      }
    });
  });
});

/** A request as it went on the wire: method, origin, path with the query string, headers, body bytes. */
function onTheWire(sent: SentRequest) {
  return { method: sent.method, origin: sent.wire.origin, path: sent.wire.path, headers: sent.wire.headers, body: sent.wire.body };
}

/**
 * An outcome as it can be compared across two runs: each run has its own
 * connection (ids and the cursors signed for them differ), so the envelope's
 * cursor is decoded with its run's scope and the connection id is named.
 */
function comparable(run: CaseRun, harness: Harness): unknown {
  const named = (value: unknown) => JSON.parse(JSON.stringify(value ?? null).split(run.scope.connectionId).join('<connection>')) as unknown;
  if ('error' in run.outcome) {
    const error = run.outcome.error;
    return error instanceof GatewayError ? named({ code: error.code, message: error.message, status: error.status, details: error.details }) : named({ thrown: String(error) });
  }
  const { envelope, status } = run.outcome;
  const cursor = envelope.meta.cursor;
  const meta = typeof cursor === 'string' ? { ...envelope.meta, cursor: decodeCursor(harness.keyring, run.scope, cursor) } : envelope.meta;
  return named({ status, envelope: { ...envelope, meta } });
}

/** Builds the request both ways; asserts they agree; says which way it went. */
async function sameBuild(
  version: AppVersion,
  action: ActionEntry,
  auth: AuthEntry | undefined,
  host: HostValues | undefined,
  args: unknown,
  deps: ArgumentDependencies,
  where: string,
  baseUrl?: string,
): Promise<'built' | 'refused'> {
  const api = baseUrl === undefined ? version.api : { ...version.api, baseUrl };
  const reference = await settled(() => buildOutboundRequest({ action, api, auth, host, arguments: args }, deps));
  const planned = await settled(() => planOf(version, action).build({ auth, host, arguments: args, baseUrl }, deps));
  expect(planned, where).to.deep.equal(reference);
  if ('error' in reference) return 'refused';
  // The origin the plan knows without parsing (a NextUrl cursor is held to it) is the built URL's.
  const origin = planOf(version, action).originOf(baseUrl);
  if (origin !== undefined) expect(origin, `${where}: the origin`).to.equal(new URL((reference.built as { request: { url: string } }).request.url).origin);
  return 'built';
}

async function settled(build: () => Promise<unknown>): Promise<{ built: unknown } | { error: unknown }> {
  try {
    // The body's presence counts: undefined (no body) and {} (an empty JSON body) are different requests.
    const built = (await build()) as { request: { body: unknown } };
    return { built: { ...built, request: { ...built.request, hasBody: built.request.body !== undefined } } };
  } catch (error) {
    if (error instanceof GatewayError) return { error: { code: error.code, message: error.message, details: error.details } };
    return { error: { thrown: String(error) } };
  }
}

/** What a strict lookup's action answers in these builds. */
function lookupAnswer(action: string): ListOption[] {
  return [
    { value: 'opt-1', label: `${action} one` },
    { value: 2, label: `${action} two` },
  ];
}

/** Values for the API's and the auth's arguments: text for most, the first option of a list, true for booleans. */
function hostValues(version: AppVersion, auth: AuthEntry | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const arg of [...version.api.arguments, ...(auth?.arguments ?? [])]) {
    if (arg.parent !== undefined) continue;
    values[arg.key] = goodValue(arg);
  }
  return values;
}

function goodValue(arg: ArgumentEntry): unknown {
  if (arg.list?.type === 'Fixed') return arg.list.options[0]?.value;
  if (arg.list?.type === 'Country') return 'de';
  if (arg.list?.type === 'Currency') return 'eur';
  switch (arg.dataType) {
    case 'Number':
      return arg.minimum ?? 3;
    case 'Boolean':
      return 'TRUE';
    case 'Date':
      return arg.format === 'Date' ? '2024-05-01' : '2024-05-01T14:00:00+02:00';
    case 'Object':
      return {};
    case 'Array':
      return [];
    default:
      return arg.format === 'email' ? 'ada@example.com' : arg.format === 'uri' ? 'https://example.com/x' : 'value-1';
  }
}

/** Wrong values for a data type: each a different refusal (or coercion) path. */
function wrongValues(arg: ArgumentEntry): unknown[] {
  switch (arg.dataType) {
    case 'Number':
      return ['5px', ' -1.5e3 ', true, 1.5, -1e9, 1e12];
    case 'Boolean':
      return ['yes', 1, ' false '];
    case 'Date':
      return ['2024-02-30', '2024-05-01T12:00', 20240501, '2024-05-01T12:00:00.123Z'];
    case 'Object':
      return ['text', [], { unknownField: 1 }];
    case 'Array':
      return [{}, ['text', 5], [{ unknownField: 1 }]];
    case 'List':
      return ['not-an-option', { a: 1 }, 2];
    default:
      return [{ a: 1 }, 42, '', 'x'.repeat(300), 'not an email', 'a\r\nb'];
  }
}

/** The made-up argument sets of an action, by name. */
function madeUpArguments(action: ActionEntry): [string, unknown][] {
  const top = action.arguments.filter((a) => a.parent === undefined);
  const good: Record<string, unknown> = {};
  for (const arg of top) if (!arg.hidden) good[arg.key] = goodValue(arg);
  const sets: [string, unknown][] = [
    ['nothing: defaults, required and path parameters missing', {}],
    ['every visible argument good', good],
    ['null arguments', null],
    ['arguments that are not an object', ['a']],
    ['an unknown key', { ...good, unknownKey: 1 }],
    ['an empty key', { '': 1 }],
  ];
  const child = action.arguments.find((a) => a.parent !== undefined);
  if (child) sets.push([`child ${child.key} sent at the top level`, { ...good, [child.key]: goodValue(child) }]);
  for (const arg of top) {
    if (arg.hidden) sets.push([`hidden ${arg.key} set`, { ...good, [arg.key]: goodValue(arg) }]);
    sets.push([`${arg.key} null (its default, if any)`, { ...good, [arg.key]: null }]);
    sets.push([`${arg.key} left out`, Object.fromEntries(Object.entries(good).filter(([key]) => key !== arg.key))]);
    for (const [i, wrong] of wrongValues(arg).entries()) sets.push([`${arg.key} wrong value ${i}`, { ...good, [arg.key]: wrong }]);
    if (arg.multipleValues) {
      sets.push([`${arg.key} as a list`, { ...good, [arg.key]: [goodValue(arg), goodValue(arg)] }]);
      sets.push([`${arg.key} as a list with a bad element`, { ...good, [arg.key]: [goodValue(arg), { bad: true }] }]);
      sets.push([`${arg.key} as an empty list`, { ...good, [arg.key]: [] }]);
    }
    const children = action.arguments.filter((a) => a.parent === arg.key);
    if (children.length > 0) {
      const inner = Object.fromEntries(children.map((c) => [c.key, goodValue(c)]));
      const value = arg.dataType === 'Array' ? [inner, { ...inner, extra: 1 }, 'not an object'] : { ...inner, extra: 1 };
      sets.push([`${arg.key} with its fields`, { ...good, [arg.key]: arg.dataType === 'Array' ? [inner] : inner }]);
      sets.push([`${arg.key} with its fields and more`, { ...good, [arg.key]: value }]);
      for (const c of children) for (const [i, wrong] of wrongValues(c).entries()) {
        const bad = { ...inner, [c.key]: wrong };
        sets.push([`${arg.key}.${c.key} wrong value ${i}`, { ...good, [arg.key]: arg.dataType === 'Array' ? [bad] : bad }]);
      }
    }
  }
  if (action.pagination) {
    sets.push(['a cursor of the wrong form', { ...good, cursor: 'not a cursor' }]);
    sets.push(['a cursor that is an object', { ...good, cursor: { page: 2 } }]);
    sets.push(['a cursor', { ...good, cursor: 'abc_DEF-1.sig_2' }]);
  }
  return sets;
}

