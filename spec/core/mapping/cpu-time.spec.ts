import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { compileExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';
import { setSliceMs } from '../../../engine/core/mapping/slice.ts';
import { RESPONSE_MAPPING } from '../../../scripts/bench/bench-app.ts';
import { listing } from '../../../scripts/bench/records.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list-items.yaml', line: 20, column: 3 };
const LIMITS: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 300 };

/**
 * Another request's work on every turn of the event loop while it runs: a
 * mapping that yields at the end of every slice waits that long for its
 * next one.
 */
function busyNeighbour(workMs: number): () => void {
  let running = true;
  const turn = () => {
    if (!running) return;
    for (const end = performance.now() + workMs; performance.now() < end; );
    setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    running = false;
  };
}

/** The evaluation's outcome and its wall-clock time, in slices of `sliceMs`, the neighbour busy `neighbourMs` on every turn meanwhile. */
async function besideABusyNeighbour(source: string, input: unknown, sliceMs: number, neighbourMs: number): Promise<{ result: unknown; error: unknown; wallMs: number }> {
  const compiled = compileExpression(source, ORIGIN, LIMITS);
  const previous = setSliceMs(sliceMs);
  const stop = busyNeighbour(neighbourMs);
  const started = performance.now();
  try {
    return { result: await evaluateGuarded(compiled, input), error: undefined, wallMs: performance.now() - started };
  } catch (error) {
    return { result: undefined, error, wallMs: performance.now() - started };
  } finally {
    stop();
    setSliceMs(previous);
  }
}

describe('MAPPING_TIMEOUT_MS counts the mapping’s own time, not the turns it leaves to other requests', function () {
  this.timeout(120_000);

  // Each computes a few ms (tens on a busy machine), in slices of 0.25 ms: dozens of yields, each waiting out the neighbour's 50 ms.
  const mapping = { name: 'on the fast path', source: RESPONSE_MAPPING, input: { status: 200, body: listing(10_000) } };
  const jsonataOnly = { name: 'under jsonata', source: '$map(body.data.records, function($r) { $r.id & " " & $r.email })', input: { body: listing(300) } };

  it('the mappings take the paths they are named for', () => {
    expect(fastPathOf(compileExpression(mapping.source, ORIGIN, LIMITS).expression)).to.not.equal(null);
    expect(fastPathOf(compileExpression(jsonataOnly.source, ORIGIN, LIMITS).expression)).to.equal(null);
  });

  for (const { name, source, input } of [mapping, jsonataOnly]) {
    it(`a mapping ${name} that yields a lot but computes little answers, however long it waits`, async () => {
      // Warmed up first, as in a gateway that has been serving: a first evaluation also compiles the code it runs.
      await evaluateGuarded(compileExpression(source, ORIGIN, { ...LIMITS, timeoutMs: 60_000 }), input);
      const { result, error, wallMs } = await besideABusyNeighbour(source, input, 0.25, 50);
      expect(error, String((error as Error | undefined)?.message)).to.equal(undefined);
      expect(wallMs, 'it waited past the timeout in all').to.be.greaterThan(LIMITS.timeoutMs);
      expect(JSON.stringify(result)).to.have.length.greaterThan(10_000);
    });
  }

  const runaway = [
    { name: 'on the fast path', source: '$count($$.body.a.($count($$.body.a.($count($$.body.a)))))', fast: true },
    { name: 'under jsonata', source: '(\n  $f := function() { $f() };\n  $f()\n)', fast: false },
  ];
  for (const { name, source, fast } of runaway) {
    it(`a mapping ${name} that computes past the limit is still stopped, at the step it reached`, async () => {
      expect(fastPathOf(compileExpression(source, ORIGIN, LIMITS).expression) !== null).to.equal(fast);
      const a = Array.from({ length: 1000 }, () => ({ x: 1 })); // a billion steps
      // Slices of 5 ms: the timeout passes after some 60 of them, each followed by the neighbour's 25 ms.
      const { error } = await besideABusyNeighbour(source, { body: { a } }, 5, 25);
      expect(error).to.be.instanceOf(MappingError);
      const details = (error as MappingError).details;
      expect(details).to.include({ file: ORIGIN.file, reason: 'timeout', code: 'D1012', limit: 300, setting: 'MAPPING_TIMEOUT_MS' });
      expect(details.line).to.be.within(ORIGIN.line, ORIGIN.line + 2);
      expect((error as MappingError).message).to.match(/:\d+:\d+: the mapping was stopped after 300 ms \(MAPPING_TIMEOUT_MS\); check for an infinite loop$/);
    });
  }
});
