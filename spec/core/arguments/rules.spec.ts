import { expect } from 'chai';
import { buildOutboundRequest, evaluateMapperPlainly, type ArgumentDependencies } from '../../../engine/core/arguments/index.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { loadGoldenApps, readGoldenFiles, versionOf } from '../../support/argument-cases.ts';

const snapshot = loadGoldenApps(new Map([...readGoldenFiles()].filter(([app]) => app === 'rules')));
const version = versionOf(snapshot, 'rules');
const deps: ArgumentDependencies = {
  evaluateMapper: evaluateMapperPlainly,
  lookupOptions: async () => {
    throw new Error('no lookups here');
  },
};

/** The problems of the VALIDATION_ERROR a build answers, or [] when the request is built. */
async function problemsOf(action: string, args: Record<string, unknown>): Promise<{ field: string; rule: string; message: string }[]> {
  try {
    await buildOutboundRequest({ action: version.actions.get(action)!, api: version.api, auth: version.api.auths[0], arguments: args }, deps);
    return [];
  } catch (error) {
    expect(error).to.be.instanceOf(GatewayError);
    expect((error as GatewayError).status).to.equal(400);
    expect((error as GatewayError).code).to.equal('VALIDATION_ERROR');
    return ((error as GatewayError).details as { problems: { field: string; rule: string; message: string }[] }).problems;
  }
}

/**
 * The value rules beyond the golden cases (spec/fixtures/arguments/golden/rules.yaml):
 * the edges of each string format, and a pattern that would stall a
 * backtracking engine.
 */
describe('argument value rules', () => {
  const formats: [string, string, boolean][] = [
    ['email', 'ada@example.com', true],
    ['email', 'ada.lovelace+tag@mail.example.co.uk', true],
    ['email', 'ada@example', false],
    ['email', 'ada@@example.com', false],
    ['email', 'a@b@example.com', false],
    ['email', '@example.com', false],
    ['email', 'ada @example.com', false],
    ['email', 'ada@example..com', false],
    ['email', 'ada@.example.com', false],
    ['email', 'ada@example.com.', false],
    ['website', 'https://example.com', true],
    ['website', 'mailto:ada@example.com', true],
    ['website', 'urn:isbn:0451450523', true],
    ['website', 'example.com', false],
    ['website', '//example.com/x', false],
    ['website', 'https://exa mple.com', false],
    ['website', 'https://example.com/a b', false],
    ['website', 'http://', false],
    ['at', '2024-05-01T12:00:00Z', true],
    ['at', '2024-05-01t12:00:00.123456z', true],
    ['at', '2024-05-01T12:00:00-05:30', true],
    ['at', '2024-05-01', false],
    ['at', '2024-05-01T12:00Z', false],
    ['at', '2024-02-30T12:00:00Z', false],
    ['at', '2024-05-01T24:00:00Z', false],
    ['at', '2024-05-01T12:00:00+25:00', false],
    ['at', '2024-05-01 12:00:00Z', false],
  ];
  for (const [key, value, ok] of formats) {
    it(`${key}: ${JSON.stringify(value)} is ${ok ? 'accepted' : 'refused with rule format'}`, async () => {
      const problems = await problemsOf('charge', { amount: 1, [key]: value });
      expect(problems.map((p) => `${p.field} ${p.rule}`)).to.deep.equal(ok ? [] : [`${key} format`]);
    });
  }

  it('a number given as text with an exponent that makes it whole is an integer', async () => {
    expect(await problemsOf('charge', { amount: '1e2' })).to.deep.equal([]);
  });

  it('a 100 KB value against ^(a+)+$ answers quickly (RE2 is linear), and the message shows only a bounded piece of it', async () => {
    const hostile = `${'a'.repeat(100_000)}!`;
    const started = performance.now();
    const problems = await problemsOf('hostile', { name: hostile });
    const elapsed = performance.now() - started;
    expect(problems).to.have.length(1);
    expect(problems[0]).to.include({ field: 'name', rule: 'pattern' });
    expect(problems[0]!.message.length).to.be.below(200);
    expect(elapsed, `took ${elapsed.toFixed(0)} ms`).to.be.below(1000);
    // And the same length that matches is accepted, as quickly.
    expect(await problemsOf('hostile', { name: 'a'.repeat(100_000) })).to.deep.equal([]);
  });
});
