import { expect } from 'chai';
import fc from 'fast-check';
import jsonata from 'jsonata';
import { expectAgreement } from '../support/fast-path-agreement.ts';

/**
 * Differential test of the fast path on expressions generated from the
 * subset's grammar (paths, predicates, `[]`, constructors, operators,
 * conditions, blocks, the built-ins), over generated JSON that uses the same
 * field names: whenever the fast path answers, jsonata answers the same.
 */
const FIELDS = ['a', 'b', 'c', 'd e', 'x-y'];
const field = fc.constantFrom(...FIELDS).map((name) => (/^[a-z]$/.test(name) ? name : name.includes(' ') ? `\`${name}\`` : `"${name}"`));

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

const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string; path: string; step: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('path'),
    fc.constantFrom('1', '3', '-2', '0.5', '0.1', '"s"', '"A b"', 'true', 'false', 'null', '$', '$$', '$v', '$nobody', '[]', '{}'),
    fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '=', '!=', '<', '<=', '>', '>=', '&', 'and', 'or', 'in'), tie('expr')).map(([l, op, r]) => `(${l} ${op} ${r})`),
    tie('expr').map((e) => `-(${e})`),
    fc.tuple(tie('expr'), tie('expr'), fc.option(tie('expr'))).map(([c, t, e]) => (e === null ? `(${c} ? ${t})` : `(${c} ? ${t} : ${e})`)),
    fc.array(fc.tuple(fc.constantFrom('k', 'l', 'a'), tie('expr')), { maxLength: 3 }).map((pairs) => `{ ${pairs.map(([k, v], i) => `"${k}${i}": ${v}`).join(', ')} }`),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `(${x}; ${y})`),
    fc
      .tuple(fc.constantFrom('exists', 'count', 'string', 'lowercase', 'uppercase', 'trim', 'length', 'not', 'boolean', 'number', 'merge', 'join', 'fromMillis'), fc.array(tie('expr'), { maxLength: 2 }))
      .map(([f, args]) => `$${f}(${args.join(', ')})`),
  ),
  path: fc.tuple(fc.oneof(field, fc.constantFrom('$', '$$', '$v')), fc.array(tie('step'), { maxLength: 3 }), fc.boolean()).map(([first, steps, keep]) => `${[first, ...steps].join('.')}${keep ? '[]' : ''}`),
  step: fc.oneof(
    { depthSize: 'small' },
    field,
    field.map((f) => `${f}[]`),
    fc.tuple(field, fc.constantFrom('0', '-1', '1', '1.5')).map(([f, i]) => `${f}[${i}]`),
    fc.tuple(field, tie('expr')).map(([f, p]) => `${f}[${p}]`),
    tie('expr').map((e) => `(${e})`),
    fc.array(tie('expr'), { minLength: 1, maxLength: 2 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(fc.constantFrom('k', 'a'), tie('expr')).map(([k, v]) => `{ "${k}": ${v} }`),
    fc.constantFrom('$string()', '$uppercase()', '$exists(a)', '$count(b)', '$not()'),
  ),
})).expr;

const parses = (source: string) => {
  try {
    jsonata(source);
    return true;
  } catch {
    return false;
  }
};

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
