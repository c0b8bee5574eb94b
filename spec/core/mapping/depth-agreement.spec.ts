import { expect } from 'chai';
import { guardedJsonata } from '../../../engine/core/mapping/compile.ts';
import { evaluateFast, fastPathOf, FELL_BACK } from '../../../engine/core/mapping/fast/index.ts';
import { GUARD_BINDING, newGuardState } from '../../../engine/core/mapping/guard.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { setSliceMs } from '../../../engine/core/mapping/slice.ts';
import { toJson } from '../../../engine/core/mapping/to-json.ts';

/**
 * MAPPING_MAX_DEPTH means nesting on both paths: a mapping's outcome never
 * depends on whether the fast path or guarded jsonata ran it. jsonata's
 * own `stack` counter grew with the members of object and array literals
 * (it evaluates them concurrently, on one counter), so a wide literal
 * answered on the fast path and failed with D1011 under jsonata.
 */
const LIMITS: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 60_000 }; // maxDepth 200
const INPUT = { a: { b: 'x', c: [1, 2, 3] } };

type Outcome = { ok: true; value: unknown } | { ok: false; code: string | undefined };

/** The guarded jsonata path alone, as evaluateGuarded runs it after the fast path hands over. */
async function guardedOutcome(source: string): Promise<Outcome> {
  const expression = guardedJsonata(source, LIMITS);
  try {
    return { ok: true, value: toJson(await expression.evaluate(structuredClone(INPUT), { [GUARD_BINDING]: newGuardState() }), LIMITS.maxSequence) };
  } catch (error) {
    return { ok: false, code: (error as { code?: string }).code };
  }
}

function fastOutcome(source: string): unknown {
  const fast = fastPathOf(guardedJsonata(source, LIMITS));
  return fast ? evaluateFast(fast, structuredClone(INPUT), {}) : FELL_BACK;
}

const member = (i: number) => (i % 3 === 0 ? 'a.b' : i % 3 === 1 ? 'a.c[1]' : `$string(a.c[${i % 3}]) & "-${i}"`);
const object = (n: number, value: (i: number) => string = member) => `{${Array.from({ length: n }, (_, i) => `"k${i}": ${value(i)}`).join(', ')}}`;
const array = (n: number, value: (i: number) => string = member) => `[${Array.from({ length: n }, (_, i) => value(i)).join(', ')}]`;
/** `depth` array constructors, one inside the other, around a path. */
const nested = (depth: number) => `${'['.repeat(depth)}a.b${']'.repeat(depth)}`;

const WIDTHS = [50, 99, 100, 101, 150, 199, 200, 201, 250, 500];
const WIDE: Record<string, string> = {};
for (const n of WIDTHS) {
  WIDE[`an object of ${n} members`] = object(n);
  WIDE[`an array of ${n} members`] = array(n);
  WIDE[`an object of ${n} arrays of 3 objects`] = object(n, (i) => array(3, (j) => object(2, (k) => member(i + j + k))));
  WIDE[`${n} members under an object nested 150 deep`] = `${'{"n": '.repeat(150)}${array(n)}${'}'.repeat(150)}`;
  WIDE[`a path over ${n}-member objects`] = `a.c.${object(n, (i) => (i % 2 ? '$' : `$ * ${i}`))}`;
}
/** Nesting at and around the limit (200): the root counts one level, each constructor one, the path one more. */
const DEEP: Record<number, string> = {};
for (const depth of [150, 195, 196, 197, 198, 199, 200, 201, 210, 400]) DEEP[depth] = nested(depth);

for (const [slice, ms] of [
  ['unlimited', Number.POSITIVE_INFINITY],
  ['zero', 0],
] as const) {
  describe(`mapping depth on both paths, cooperative slice ${slice}`, function () {
    this.timeout(120_000);
    let previous: number;
    before(() => (previous = setSliceMs(ms)));
    after(() => setSliceMs(previous));

    for (const [name, source] of Object.entries(WIDE)) {
      it(`${name}: both paths answer, the same`, async () => {
        const slow = await guardedOutcome(source);
        expect(slow, `guarded jsonata on ${name}`).to.include({ ok: true });
        const quick = fastOutcome(source);
        if (quick !== FELL_BACK) expect(quick).to.deep.equal((slow as { value: unknown }).value);
      });
    }

    for (const [depth, source] of Object.entries(DEEP)) {
      it(`array literals nested ${depth} deep: the fast path never answers where guarded jsonata fails`, async () => {
        const slow = await guardedOutcome(source);
        const quick = fastOutcome(source);
        if (quick !== FELL_BACK) {
          expect(slow, `guarded jsonata where the fast path answered, nested ${depth}`).to.include({ ok: true });
          expect(quick).to.deep.equal((slow as { value: unknown }).value);
        }
        if (Number(depth) > LIMITS.maxDepth) expect(slow).to.deep.equal({ ok: false, code: 'D1011' });
        if (Number(depth) < LIMITS.maxDepth - 2) expect(slow).to.include({ ok: true });
      });
    }
  });
}

describe('mapping depth under guarded jsonata: nesting, not width', function () {
  this.timeout(60_000);
  const recursive = (n: number) => `($f := function($n) { $n = 0 ? "end" : {${Array.from({ length: 150 }, (_, i) => `"m${i}": $n`).join(', ')}, "next": $f($n - 1)} }; $count($keys($f(${n}))))`;

  it('a wide literal in $eval counts its nesting', async () => {
    expect(await guardedOutcome(`$eval('${array(300)}') ~> $count()`)).to.deep.equal({ ok: true, value: 300 });
  });

  it('recursion through a wide literal stops by its nesting, at the same call whatever the width', async () => {
    expect(await guardedOutcome(recursive(20))).to.deep.equal({ ok: true, value: 151 });
    expect(await guardedOutcome(recursive(200))).to.deep.equal({ ok: false, code: 'D1011' });
  });

  it('a member that fails stops its literal with its error', async () => {
    expect(await guardedOutcome(`[${Array.from({ length: 100 }, (_, i) => (i === 50 ? '$error("no")' : 'a.b')).join(', ')}]`)).to.deep.equal({ ok: false, code: 'D3137' });
  });
});
