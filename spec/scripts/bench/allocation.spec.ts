import { expect } from 'chai';
import { allocatedPerCall } from '../../../scripts/bench/allocation.ts';

/**
 * bench:run's "KB allocated per call" (scripts/bench/allocation.ts): V8's sampling heap profiler with the
 * collected objects kept. Held to calls whose allocation is known within a few percent: arrays of a
 * given length that escape (kept in a module-level slot, so escape analysis cannot remove them), garbage
 * the next call makes.
 */
let kept: unknown = null;
/** Reads the slot, so that the compiler sees it used (its only purpose is to be written). */
const keptLength = () => (Array.isArray(kept) ? kept.length : 0);

describe('bench: bytes allocated per call', function () {
  this.timeout(60_000);

  it('counts what a call allocates, garbage collected since included', async () => {
    // A holey array of 10,000 elements: a 16-byte header and 8 bytes an element on a 64-bit heap without
    // pointer compression (Node's builds), ~78 KB, garbage at the next call.
    const small = await allocatedPerCall(() => {
      kept = new Array(10_000).fill(0);
    }, 200);
    const large = await allocatedPerCall(() => {
      kept = new Array(40_000).fill(0);
    }, 200);
    expect(keptLength()).to.equal(40_000);
    expect(small / 1024).to.be.within(70, 90);
    // Four times the elements, four times the bytes (within the sampling's noise): the figure scales with the call.
    expect(large / small).to.be.within(3.6, 4.4);
  });

  it('says about nothing for a call that allocates nothing', async () => {
    let sum = 0;
    const bytes = await allocatedPerCall(() => {
      for (let i = 0; i < 100; i++) sum += i;
    }, 2_000);
    expect(sum).to.be.greaterThan(0);
    // The loop's await of each call allocates a little (a promise), never kilobytes.
    expect(bytes).to.be.below(512);
  });
});
