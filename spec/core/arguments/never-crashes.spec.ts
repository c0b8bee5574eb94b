import { expect } from 'chai';
import fc from 'fast-check';
import { ARGUMENT_RULES, buildOutboundRequest, evaluateMapperPlainly, type ArgumentDependencies } from '../../../engine/core/arguments/index.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { loadGoldenApps, readGoldenFiles, versionOf } from '../../support/argument-cases.ts';

const golden = readGoldenFiles();
const snapshot = loadGoldenApps(golden);

/** Every action of every golden app, with the keys a caller could send to it. */
const targets = [...golden.keys()].flatMap((app) => {
  const version = versionOf(snapshot, app);
  return [...version.actions.values()].map((action) => ({ app, version, action, keys: [...action.arguments.map((a) => a.key), 'cursor'] }));
});

const deps: ArgumentDependencies = {
  evaluateMapper: evaluateMapperPlainly,
  lookupOptions: async (list) => [...golden.values()].find((f) => f.lookups?.[list.action])?.lookups?.[list.action] ?? [],
};

/** A value of any JSON shape, and some that JSON cannot carry (undefined, NaN, -0, null-prototype objects). */
const anyValue = fc.oneof(fc.jsonValue(), fc.anything({ withNullPrototype: true, withObjectString: true, maxDepth: 3 }));

/** Argument objects that mostly use the action's real keys (so deep paths are reached), sometimes others. */
const argumentsFor = (keys: string[]) =>
  fc.oneof(
    fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string()), anyValue, { maxKeys: 8 }),
    fc.record(Object.fromEntries(keys.map((k) => [k, anyValue])), { requiredKeys: [] }),
    anyValue,
  );

/**
 * Whatever a caller sends, the builder answers with a request or with a
 * VALIDATION_ERROR whose problems each name a field and a known rule; it
 * never throws anything else.
 */
describe('arguments: random caller input never crashes the builder', () => {
  it('answers a request or a VALIDATION_ERROR for any arguments and host values', async () => {
    await fc.assert(
      fc.asyncProperty(
        // By name, so a counterexample prints as app/action rather than the whole snapshot.
        fc.constantFrom(...targets.map((t) => `${t.app}/${t.action.id}`)).chain((name) =>
          fc.tuple(fc.constant(name), argumentsFor(targets.find((t) => `${t.app}/${t.action.id}` === name)!.keys), fc.record({ connection: fc.dictionary(fc.constantFrom('subdomain', 'region', 'apiKey', 'apiVersion'), anyValue), metadata: fc.dictionary(fc.constantFrom('tenant'), anyValue) })),
        ),
        async ([name, args, host]) => {
          const t = targets.find((target) => `${target.app}/${target.action.id}` === name)!;
          try {
            const built = await buildOutboundRequest({ action: t.action, api: t.version.api, auth: t.version.api.auths[0], host, arguments: args }, deps);
            expect(URL.canParse(built.request.url), built.request.url).to.equal(true);
            for (const value of Object.values(built.request.query)) {
              expect(typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'))).to.equal(true);
            }
            for (const value of Object.values(built.request.headers)) expect(value).to.be.a('string');
          } catch (error) {
            if (!(error instanceof GatewayError)) throw error;
            expect(error.code).to.equal('VALIDATION_ERROR');
            const problems = (error.details as { problems: { field: string; rule: string; message: string }[] }).problems;
            expect(problems).to.not.be.empty;
            for (const p of problems) {
              expect(p.field).to.be.a('string').and.not.empty;
              expect(Object.keys(ARGUMENT_RULES)).to.include(p.rule);
              expect(p.message).to.be.a('string').and.not.empty;
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
