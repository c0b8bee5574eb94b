import { expect } from 'chai';
import { compileExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { DEFAULT_MAPPING_LIMITS } from '../../../engine/core/mapping/limits.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';
import { setSliceMs } from '../../../engine/core/mapping/slice.ts';
import { mapResponse } from '../../../engine/core/run/map-response.ts';
import { CallStop } from '../../../engine/platform/outbound/call-stop.ts';
import { RESPONSE_MAPPING } from '../../../scripts/bench/bench-app.ts';
import { listing } from '../../../scripts/bench/records.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list-items.yaml', line: 20, column: 3 };
/** Outside the fast path's subset (a function definition): jsonata evaluates it, under the guard. */
const JSONATA_ONLY = '($double := function($x) { $x * 2 }; $sum([1..5000].$double($)))';

/** Starts the evaluation in slices of 0 ms (it yields at every look at the clock), has the caller hang up at the next turn, and answers how it ended. */
async function hangUpDuring(evaluation: (stop: CallStop) => Promise<unknown>): Promise<{ result: unknown; error: unknown }> {
  const previous = setSliceMs(0);
  const stop = new CallStop();
  try {
    const running = evaluation(stop);
    setImmediate(() => stop.abort(new Error('the caller went away')));
    return { result: await running, error: undefined };
  } catch (error) {
    return { result: undefined, error };
  } finally {
    setSliceMs(previous);
  }
}

describe('a mapping whose caller went away', function () {
  this.timeout(60_000);

  it('stops at its next turn on the fast path, rejecting with the reason it was stopped for (not a mapping error)', async () => {
    const compiled = compileExpression(RESPONSE_MAPPING, ORIGIN, DEFAULT_MAPPING_LIMITS);
    expect(fastPathOf(compiled.expression), 'the bench mapping is in the fast path').to.not.equal(null);
    const { result, error } = await hangUpDuring((stop) => evaluateGuarded(compiled, { status: 200, headers: {}, body: listing(10_000) }, {}, stop));
    expect(result).to.equal(undefined);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(MappingError);
    expect((error as Error).message).to.equal('the caller went away');
  });

  it('stops at its next turn on jsonata, the same way', async () => {
    const compiled = compileExpression(JSONATA_ONLY, ORIGIN, DEFAULT_MAPPING_LIMITS);
    expect(fastPathOf(compiled.expression)).to.equal(null);
    const { result, error } = await hangUpDuring((stop) => evaluateGuarded(compiled, {}, {}, stop));
    expect(result).to.equal(undefined);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(MappingError);
    expect((error as Error).message).to.equal('the caller went away');
  });

  it("is stopped through the run's response mapping (mapResponse takes the run's signal)", async () => {
    const compiled = compileExpression(RESPONSE_MAPPING, ORIGIN, DEFAULT_MAPPING_LIMITS);
    const { error } = await hangUpDuring((stop) => mapResponse({ response: compiled } as never, { status: 200, headers: {}, body: listing(10_000) } as never, stop));
    expect((error as Error).message).to.equal('the caller went away');
  });

  it('maps to its end when nobody hangs up, with the stop given', async () => {
    // Yielding every 64 steps costs jsonata more than the default timeout allows this one.
    const compiled = compileExpression(JSONATA_ONLY, ORIGIN, { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 30_000 });
    const previous = setSliceMs(0);
    try {
      expect(await evaluateGuarded(compiled, {}, {}, new CallStop())).to.equal(5000 * 5001);
    } finally {
      setSliceMs(previous);
    }
  });
});
