import { expect } from 'chai';
import { QUICK_COPY_BYTES, toJson } from '../../../engine/core/mapping/to-json.ts';

/** What toJson threw, as evaluate.ts reads it: the code (SIZE, D2015) and, for a size, what went over. */
function refusal(run: () => unknown): { code?: unknown; what?: unknown } | null {
  try {
    run();
    return null;
  } catch (error) {
    const { code, what } = error as { code?: unknown; what?: unknown };
    return { code, what };
  }
}

/**
 * toJson copies a result within a small budget first, without measuring it
 * (QUICK_COPY_BYTES), then in one pass within the whole budget as long as no
 * part is met twice, and measures only what neither attempt can copy: the
 * answers and refusals must be those of measuring first.
 */
describe('toJson: the quick copy and the measured copy agree', () => {
  it('copies a result larger than the quick budget whole when it is within MAPPING_MAX_RESULT_BYTES', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: `row-${i}`, name: 'x'.repeat(40), n: i, ok: true, gone: undefined }));
    expect(JSON.stringify(rows).length).to.be.greaterThan(QUICK_COPY_BYTES);
    const copied = toJson(rows, 100_000, 16_777_216) as unknown[];
    expect(copied).to.deep.equal(JSON.parse(JSON.stringify(rows)));
    expect(copied).to.not.equal(rows);
  });

  it('copies a large result that refers to one part twice (past the one-pass copy, which meets it twice) as it copies a tree', () => {
    const tags = ['a', 'b'];
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: `row-${i}`, name: 'x'.repeat(40), tags: i % 2 ? tags : ['c'] }));
    expect(JSON.stringify(rows).length).to.be.greaterThan(QUICK_COPY_BYTES);
    expect(toJson(rows, 100_000, 16_777_216)).to.deep.equal(JSON.parse(JSON.stringify(rows)));
    expect(refusal(() => toJson(rows, 100_000, 100_000))).to.deep.equal({ code: 'SIZE', what: 'json' });
  });

  it('drops functions and undefined members and writes non-finite numbers as null, as before', () => {
    const value = { a: 1, b: undefined, c: () => 1, d: [Infinity, NaN, 2], e: { _jsonata_lambda: true }, f: 'x' };
    expect(toJson(value, 100, 1_000_000)).to.deep.equal({ a: 1, d: [null, null, 2], f: 'x' });
  });

  it('refuses a value whose JSON is over the limit by size, even when it also holds an array over MAPPING_MAX_SEQUENCE', () => {
    // Measured first, this is a size refusal; a copy alone would meet the long array first and call it a sequence.
    const long = Array.from({ length: 200 }, () => 'y'.repeat(1000));
    expect(refusal(() => toJson(long, 100, 150_000))).to.deep.equal({ code: 'SIZE', what: 'json' });
  });

  it('refuses an array over MAPPING_MAX_SEQUENCE as a sequence when its JSON is within the limit', () => {
    expect(refusal(() => toJson(Array.from({ length: 101 }, (_, i) => i), 100, 1_000_000))).to.deep.equal({ code: 'D2015', what: undefined });
  });

  it('refuses a value that shares one part many times over (JSON of 2^40 characters) by size', () => {
    let value: unknown = 'z'.repeat(100);
    for (let i = 0; i < 40; i++) value = { a: value, b: value };
    expect(refusal(() => toJson(value, 100_000, 16_777_216))).to.deep.equal({ code: 'SIZE', what: 'json' });
  });
});
