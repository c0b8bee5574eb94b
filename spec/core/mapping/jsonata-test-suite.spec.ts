import { expect } from 'chai';
import { guardedJsonata } from '../../../engine/core/mapping/compile.ts';
import { evaluateFast, fastPathOf, FELL_BACK } from '../../../engine/core/mapping/fast/index.ts';
import { GUARD_BINDING, newGuardState } from '../../../engine/core/mapping/guard.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { toJson } from '../../../engine/core/mapping/to-json.ts';
import { EXPECTED_DIFFERENCES } from '../../support/jsonata-suite-differences.ts';
import { loadSuite, type SuiteCase } from '../../support/jsonata-test-suite.ts';

/**
 * jsonata 2.2.2's own test suite (spec/fixtures/jsonata-test-suite), run
 * against both of the gateway's paths, with the gateway's limits
 * (DEFAULT_MAPPING_LIMITS; a case's own `timelimit` and `depth` when it has
 * them, and otherwise a timeout no busy machine reaches):
 *
 * - guarded jsonata (guard hooks, sized built-ins, linear-time regexes, the
 *   depth counted as nesting) gives every case's expected outcome, except
 *   the listed expected differences, which give the listed error instead;
 * - the fast path, wherever it answers, gives the expected result; it never
 *   answers where jsonata fails; and so does its resumable form alone (what
 *   an evaluation longer than a slice runs), yielding at every look at the
 *   clock.
 */
type Outcome = { ok: true; value: unknown } | { ok: false; code: string | undefined };

const CASES = loadSuite();

function limitsFor(c: SuiteCase): MappingLimits {
  return { ...DEFAULT_MAPPING_LIMITS, timeoutMs: c.timelimit ?? 30_000, maxDepth: c.depth ?? DEFAULT_MAPPING_LIMITS.maxDepth };
}

/** Expected values as the gateway hands results over: plain JSON. */
const asJson = (value: unknown) => toJson(value, Number.MAX_SAFE_INTEGER);

async function guardedOutcome(c: SuiteCase): Promise<Outcome> {
  const limits = limitsFor(c);
  try {
    const expression = guardedJsonata(c.expr, limits);
    return { ok: true, value: toJson(await expression.evaluate(structuredClone(c.input), { ...c.bindings, [GUARD_BINDING]: newGuardState() }), limits.maxSequence) };
  } catch (error) {
    return { ok: false, code: (error as { code?: string }).code };
  }
}

describe("jsonata 2.2.2's test suite on the gateway's two paths", function () {
  this.timeout(60_000);

  it('reads the whole suite', () => {
    expect(CASES.length).to.equal(1686);
  });

  it('lists expected differences only for cases of the suite', () => {
    const ids = new Set(CASES.map((c) => c.id));
    expect(Object.keys(EXPECTED_DIFFERENCES).filter((id) => !ids.has(id))).to.deep.equal([]);
  });

  it('guarded jsonata gives every case its expected outcome, or the listed difference', async () => {
    const wrong: string[] = [];
    for (const c of CASES) {
      const outcome = await guardedOutcome(c);
      const difference = EXPECTED_DIFFERENCES[c.id];
      const expected: Outcome = difference ? { ok: false, code: difference.code } : c.expected.ok ? { ok: true, value: asJson(c.expected.value) } : c.expected;
      try {
        expect(outcome).to.deep.equal(expected);
      } catch {
        wrong.push(`${c.id} ${JSON.stringify(c.expr)}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(outcome)}`.slice(0, 400));
      }
    }
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
  });

  for (const form of ['both', 'resumable'] as const) {
    it(`the fast path${form === 'resumable' ? "'s resumable form" : ''}, wherever it answers, answers as jsonata (and it answers the common cases)`, () => {
      const wrong: string[] = [];
      let answered = 0;
      for (const c of CASES) {
        let fast;
        try {
          fast = fastPathOf(guardedJsonata(c.expr, limitsFor(c)));
        } catch {
          continue; // does not parse: nothing to run
        }
        const quick = fast ? evaluateFast(fast, structuredClone(c.input), c.bindings, form) : FELL_BACK;
        if (quick === FELL_BACK) continue;
        answered++;
        if (!c.expected.ok || JSON.stringify(quick) !== JSON.stringify(asJson(c.expected.value)) || EXPECTED_DIFFERENCES[c.id]) {
          wrong.push(`${c.id} ${JSON.stringify(c.expr)}: expected ${JSON.stringify(c.expected)}, the fast path answered ${JSON.stringify(quick)}`.slice(0, 400));
        }
      }
      expect(wrong, wrong.join('\n')).to.deep.equal([]);
      expect(answered, 'cases the fast path answers (504 with jsonata 2.2.2 and the subset of subset.md)').to.be.at.least(500);
    });
  }
});
