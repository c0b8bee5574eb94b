import { expect } from 'chai';
import { compileExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { setSliceMs } from '../../../engine/core/mapping/slice.ts';
import { RESPONSE_MAPPING } from '../../../scripts/bench/bench-app.ts';
import { record } from '../../../scripts/bench/records.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list-items.yaml', line: 20, column: 3 };
const LIMITS: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 60_000 };

/**
 * Concurrent big mappings take the event loop's turns one at a time: a turn
 * runs a slice of one of them, so a request that arrives meanwhile waits for
 * one slice, not one of each. Counted, not timed: a setImmediate counts the
 * loop's turns, and each record notes, when the mapping reads its id, which
 * mapping read it in which turn.
 */
describe('concurrent mappings take the event loop’s turns one at a time', function () {
  this.timeout(120_000);

  /** The bench's listing, each record's id a getter that notes which mapping read it in which turn. */
  function listingSeen(name: string, count: number, seen: Map<number, Set<string>>, turn: () => number) {
    const records = Array.from({ length: count }, (_, i) => {
      const { id, ...rest } = record(i + 1);
      return Object.defineProperty(rest, 'id', {
        enumerable: true,
        get() {
          const now = turn();
          let names = seen.get(now);
          if (!names) seen.set(now, (names = new Set()));
          names.add(name);
          return id;
        },
      });
    });
    return { status: 200, body: { data: { records }, next: null } };
  }

  async function turnsOf(source: string, count: number): Promise<{ turns: number; shared: [number, string[]][]; results: unknown[] }> {
    const compiled = compileExpression(source, ORIGIN, LIMITS);
    let turn = 0;
    let counting = true;
    const count_ = () => {
      if (!counting) return;
      turn++;
      setImmediate(count_);
    };
    setImmediate(count_);
    const seen = new Map<number, Set<string>>();
    // Slices of 0 ms: every look at the clock yields, so each mapping takes many turns.
    const previous = setSliceMs(0);
    try {
      const results = await Promise.all(['a', 'b', 'c'].map((name) => evaluateGuarded(compiled, listingSeen(name, count, seen, () => turn))));
      // The turn they were started in runs the first slice of each (synchronously, in the caller's turn): the turns after it count.
      const shared = [...seen].filter(([at, names]) => at > 0 && names.size > 1).map(([at, names]) => [at, [...names]] as [number, string[]]);
      return { turns: turn, shared, results };
    } finally {
      counting = false;
      setSliceMs(previous);
    }
  }

  it('on the fast path, no turn runs slices of two mappings', async () => {
    expect(fastPathOf(compileExpression(RESPONSE_MAPPING, ORIGIN, LIMITS).expression)).to.not.equal(null);
    const { turns, shared, results } = await turnsOf(RESPONSE_MAPPING, 2000);
    expect(turns, 'the mappings yielded').to.be.greaterThan(3);
    expect(shared, 'turns that ran slices of two or more mappings').to.deep.equal([]);
    for (const result of results) expect((result as { data: { id: string }[] }).data.map((row) => row.id)).to.deep.equal(Array.from({ length: 2000 }, (_, i) => record(i + 1).id));
  });

  it('under jsonata, no turn runs slices of two mappings', async () => {
    const source = '$map(body.data.records, function($r) { $r.id & " " & $r.email })';
    expect(fastPathOf(compileExpression(source, ORIGIN, LIMITS).expression)).to.equal(null);
    const { turns, shared, results } = await turnsOf(source, 300);
    expect(turns, 'the mappings yielded').to.be.greaterThan(3);
    expect(shared, 'turns that ran slices of two or more mappings').to.deep.equal([]);
    for (const result of results) expect(result).to.deep.equal(Array.from({ length: 300 }, (_, i) => `${record(i + 1).id} ${record(i + 1).email}`));
  });
});
