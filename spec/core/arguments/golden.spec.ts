import { expect } from 'chai';
import { ARGUMENT_RULES, buildOutboundRequest, evaluateMapperPlainly, type ArgumentDependencies } from '../../../engine/core/arguments/index.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { loadGoldenApps, readGoldenFiles, versionOf, type GoldenCase, type GoldenFile } from '../../support/argument-cases.ts';

const golden = readGoldenFiles();
const snapshot = loadGoldenApps(golden);

/**
 * The golden cases of spec/fixtures/arguments/golden/*.yaml, one mocha case
 * each: a caller's arguments in, the outbound request (or every problem of
 * the VALIDATION_ERROR) out.
 */
describe('arguments: golden cases', () => {
  for (const [app, file] of golden) {
    describe(`${app}: ${file.description}`, () => {
      for (const c of file.cases) it(c.name, () => runCase(app, file, c));
    });
  }

  it('cover every rule of ARGUMENT_RULES at least once', () => {
    const covered = new Set([...golden.values()].flatMap((f) => f.cases.flatMap((c) => (c.errors ?? []).map((e) => e.rule))));
    expect(Object.keys(ARGUMENT_RULES).filter((rule) => !covered.has(rule as never))).to.deep.equal([]);
  });
});

async function runCase(app: string, file: GoldenFile, c: GoldenCase): Promise<void> {
  const version = versionOf(snapshot, app);
  const action = version.actions.get(c.action);
  if (!action) throw new Error(`case "${c.name}": no action ${c.action} in ${app}`);
  const auth = c.auth ? version.auths.get(c.auth) : version.api.auths[0];
  const deps: ArgumentDependencies = {
    evaluateMapper: evaluateMapperPlainly,
    lookupOptions: async (list) => {
      const options = file.lookups?.[list.action];
      if (!options) throw new Error(`case "${c.name}": no lookups.${list.action} in the fixture`);
      return options;
    },
  };
  const outcome = await buildOutboundRequest({ action, api: version.api, auth, host: c.host, arguments: c.arguments ?? {} }, deps).then(
    (built) => ({ built, error: null }),
    (error: unknown) => ({ built: null, error }),
  );

  if (c.errors) {
    if (outcome.built) expect.fail(`expected a VALIDATION_ERROR, got the request ${JSON.stringify(outcome.built.request)}`);
    const error = outcome.error as GatewayError;
    expect(error, String(error)).to.be.instanceOf(GatewayError);
    expect(error.status).to.equal(400);
    expect(error.code).to.equal('VALIDATION_ERROR');
    const problems = (error.details as { problems: Record<string, string>[] }).problems;
    // A case pins field and rule always, and the message when it writes one.
    const seen = problems.map((p, i) => ({ field: p.field, rule: p.rule, ...(c.errors![i]?.message !== undefined ? { message: p.message } : {}) }));
    expect(seen).to.deep.equal(c.errors);
    return;
  }
  if (outcome.error) throw outcome.error;
  const { request } = outcome.built!;
  const expected = { method: action.method, query: {}, headers: {}, body: undefined, ...c.request };
  expect(JSON.parse(JSON.stringify({ ...request, body: request.body ?? null }))).to.deep.equal(JSON.parse(JSON.stringify({ ...expected, body: expected.body ?? null })));
  if (c.checked) expect(outcome.built!.arguments).to.deep.equal(c.checked);
  if (c.variables) expect(outcome.built!.variables).to.deep.equal(c.variables);
}
