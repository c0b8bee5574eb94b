import { expect } from 'chai';
import fc from 'fast-check';
import { compileExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { QUICK_COPY_BYTES, sharedJson, toJson } from '../../../engine/core/mapping/to-json.ts';

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

  it("keeps an app's own `__proto__` member as a member, never as the copy's prototype, in all three copies", () => {
    // JSON.parse makes `__proto__` an own member; an assignment to a plain object would set its prototype instead.
    const text = '{"a":{"__proto__":{"isAdmin":true},"y":2},"rows":[{"__proto__":"text"}]}';
    const large = JSON.parse(`[${Array.from({ length: 3_000 }, () => text).join(',')}]`);
    for (const [what, copied] of [
      ['quick', toJson(JSON.parse(text), 100, 1_000_000)],
      ['one pass', toJson(large, 10_000, 10_000_000)],
      ['measured', toJson(JSON.parse(text))],
    ] as const) {
      const first = (Array.isArray(copied) ? copied[0] : copied) as { a: { isAdmin?: unknown } };
      expect(JSON.stringify(first), what).to.equal(text);
      expect(Object.getPrototypeOf(first.a), what).to.equal(Object.prototype);
      expect(first.a.isAdmin, what).to.equal(undefined);
    }
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

/**
 * sharedJson is toJson without the copy where the copy would change nothing: the same answers and
 * refusals, and the value itself when it is plain JSON already (a run's response mapping: rows selected
 * from the body, or built by the mapping, are not copied once more).
 */
describe('sharedJson: toJson without the copy, where the copy would change nothing', () => {
  it('answers plain JSON as it is: objects, arrays, strings, numbers, booleans and null at any depth', () => {
    const value = { data: [{ id: 1, name: 'Ada', tags: ['a', 'b'], active: true, note: null, score: -0.5 }], meta: { cursor: 'c2' } };
    expect(sharedJson(value, 100, 1_000_000)).to.equal(value);
    expect(sharedJson('text', 100, 1_000_000)).to.equal('text');
    expect(sharedJson(undefined, 100, 1_000_000)).to.equal(undefined);
  });

  it('copies, as toJson does, whatever toJson drops or changes', () => {
    const sequence = Object.assign([1, 2], { sequence: true });
    const cons = Object.defineProperty([1], 'cons', { enumerable: false, value: true });
    const cases: Record<string, unknown> = {
      'an undefined member': { a: 1, b: undefined },
      'a function member': { a: 1, f: () => 1 },
      'an undefined item': [1, undefined, 2],
      'a number that is not finite': { a: [Infinity, NaN, 1] },
      "a jsonata lambda": { a: { _jsonata_lambda: true, body: {} } },
      "one of jsonata's sequences": { a: sequence },
      'an array flagged cons': { a: cons },
      'an object without a prototype': { a: Object.assign(Object.create(null), { x: 1 }) },
      'a date': { a: new Date(0) },
      'an own __proto__ member (as JSON.parse makes)': JSON.parse('{"a": {"__proto__": {"x": 1}, "y": 2}}'),
    };
    for (const [what, value] of Object.entries(cases)) {
      const shared = sharedJson(value, 100, 1_000_000);
      expect(shared, what).to.not.equal(value);
      expect(shared, what).to.deep.equal(toJson(value, 100, 1_000_000));
    }
  });

  it('refuses what toJson refuses, the same way: a size over the limit, an array over MAPPING_MAX_SEQUENCE, and size first', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: `row-${i}`, name: 'x'.repeat(40) }));
    expect(refusal(() => sharedJson(rows, 100_000, 10_000))).to.deep.equal({ code: 'SIZE', what: 'json' });
    expect(refusal(() => sharedJson(Array.from({ length: 101 }, (_, i) => i), 100, 1_000_000))).to.deep.equal({ code: 'D2015', what: undefined });
    expect(refusal(() => sharedJson(Array.from({ length: 200 }, () => 'y'.repeat(1000)), 100, 150_000))).to.deep.equal({ code: 'SIZE', what: 'json' });
    let shared: unknown = 'z'.repeat(100);
    for (let i = 0; i < 40; i++) shared = { a: shared, b: shared };
    expect(refusal(() => sharedJson(shared, 100_000, 16_777_216))).to.deep.equal({ code: 'SIZE', what: 'json' });
  });

  it('answers what toJson answers for any value (generated: JSON with undefined, functions, non-finite numbers and flagged arrays mixed in)', () => {
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(() => 1));
    const value = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('value'), { maxLength: 6 }),
        fc.tuple(fc.array(tie('value'), { maxLength: 4 }), fc.boolean()).map(([items, flagged]) => (flagged ? Object.assign(items, { sequence: true }) : items)),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 400 }), (v, maxSequence, maxBytes) => {
        const expected = refusal(() => toJson(v, maxSequence, maxBytes));
        expect(refusal(() => sharedJson(v, maxSequence, maxBytes))).to.deep.equal(expected);
        if (!expected) expect(sharedJson(v, maxSequence, maxBytes)).to.deep.equal(toJson(v, maxSequence, maxBytes));
      }),
      { numRuns: 2000 },
    );
  });

  it("is what a response mapping answers (evaluateGuarded's mayShareInput): rows the mapping selected are the body's own; without it, a copy", async () => {
    const mapping = compileExpression('{ "data": body.items, "meta": { "next": body.next } }', { file: 'list.yaml', line: 1, column: 1 });
    const body = { items: [{ id: 'a', n: 1 }, { id: 'b', n: 2 }], next: 'p2' };
    const shared = (await evaluateGuarded(mapping, { body }, {}, undefined, { mayShareInput: true })) as { data: unknown };
    const copied = (await evaluateGuarded(mapping, { body })) as { data: unknown };
    expect(shared).to.deep.equal({ data: body.items, meta: { next: 'p2' } });
    expect(shared.data).to.equal(body.items);
    expect(copied).to.deep.equal(shared);
    expect(copied.data).to.not.equal(body.items);
  });
});
