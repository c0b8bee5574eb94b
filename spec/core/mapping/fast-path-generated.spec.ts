import { expect } from 'chai';
import fc from 'fast-check';
import { expectAgreement, parses } from '../../support/fast-path-agreement.ts';
import { expression, FIELDS } from '../../support/generated-expressions.ts';

/**
 * Differential test of the fast path on expressions generated from the
 * subset's grammar (paths, predicates, `[]`, constructors, operators,
 * conditions, blocks, the built-ins), over generated JSON that uses the same
 * field names: whenever the fast path answers, jsonata answers the same.
 */
const number = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(0.5, -1.25, 0.1, 1 / 3, 0.1 + 0.2, 1e21, 1700000000000, 2.5e-7, 123456.789));
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, '', 'x', 'Ab C', '  two  words ', '12', '0x1F', '-3.5e2'),
    number,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...FIELDS, 'other'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('the fast path agrees with jsonata on generated expressions and inputs', () => {
  it('answers as jsonata does whenever it answers', async function () {
    this.timeout(120_000);
    let answered = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(expression.filter(parses), json, json, async (source, input, bound) => {
        runs++;
        if (await expectAgreement(source, input, { v: bound })) answered++;
      }),
      { numRuns: 4000, seed: 20260213 },
    );
    // Most generated expressions are in the subset and most evaluations succeed, so the fast path must answer often.
    expect(answered, `answered ${answered} of ${runs}`).to.be.greaterThan(runs / 3);
  });
});
