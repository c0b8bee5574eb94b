import { expect } from 'chai';
import { compileExpression, guardedJsonata } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { evaluateFast, fastPathOf, FELL_BACK } from '../../../engine/core/mapping/fast/index.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';
import { RESPONSE_MAPPING } from '../../../scripts/bench/bench-app.ts';
import { expectAgreement } from '../../support/fast-path-agreement.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list-items.yaml', line: 20, column: 3 };
const BODY = {
  one: [{ id: 1 }],
  two: [{ id: 1 }, { id: 2 }],
  matrix: [[{ v: 1 }, { v: 2 }], [{ v: 3 }]],
  nested: [[1, 2], [3]],
  rows: [{ cells: [[1, 2], [3]] }, { cells: [[4]] }],
  name: 'x',
  n: 2,
  items: [
    { id: 'a', active: true, score: 3 },
    { id: 'b', active: false, score: 9 },
    { id: 'c', score: 7 },
  ],
};
const INPUT = { status: 200, body: BODY };

/** The fast path's answer, checked against jsonata's. */
async function fastly(source: string, input: unknown = INPUT, bindings: Record<string, unknown> = {}): Promise<unknown> {
  expect(await expectAgreement(source, input, bindings), `the fast path answers ${source}`).to.equal(true);
  return evaluateFast(fastPathOf(guardedJsonata(source))!, input, bindings);
}

async function mappingFailure(promise: Promise<unknown>): Promise<MappingError> {
  const error = await promise.then(
    () => expect.fail('expected a MappingError'),
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(MappingError);
  return error as MappingError;
}

describe('the fast path of JSONata mappings', () => {
  describe('answers as jsonata does', () => {
    it('maps the benchmark records', async () => {
      const records = [1, 2].map((i) => ({ id: i, first_name: `F${i}`, last_name: `L${i}`, email: `e${i}@x.example`, created_at: '2024-01-01', active: i === 1, score: i / 3 }));
      expect(await fastly(RESPONSE_MAPPING, { status: 200, body: { data: { records }, next: 'p2' } })).to.deep.equal({
        success: true,
        data: records.map((r) => ({ id: r.id, name: `${r.first_name} ${r.last_name}`, email: r.email, createdAt: r.created_at, active: r.active, score: r.score })),
        meta: { cursor: 'p2' },
      });
      expect(await fastly(RESPONSE_MAPPING, { status: 200, body: { data: { records: records.slice(0, 1) } } }), 'one record is still a list').to.have.property('data').with.length(1);
    });

    it('unwraps a singleton sequence, unless `[]` or an array constructor keeps it', async () => {
      expect(await fastly('body.one.id')).to.equal(1);
      expect(await fastly('body.two.id')).to.deep.equal([1, 2]);
      expect(await fastly('body.one[].id')).to.deep.equal([1]);
      expect(await fastly('body.one.id[]')).to.deep.equal([1]);
      expect(await fastly('[body.one.id]')).to.deep.equal([1]);
      expect(await fastly('body.missing[]')).to.equal(undefined);
    });

    it('leaves out missing fields, and concatenates them as empty strings', async () => {
      expect(await fastly('{ "a": body.missing, "b": 1 }')).to.deep.equal({ b: 1 });
      expect(await fastly('body.missing & "x"')).to.equal('x');
      expect(await fastly('"x" & body.missing')).to.equal('x');
      expect(await fastly('body.missing')).to.equal(undefined);
    });

    it('flattens arrays of arrays along a path, but not a field that is one, nor an array built in the expression', async () => {
      expect(await fastly('body.matrix.v')).to.deep.equal([1, 2, 3]);
      expect(await fastly('body.nested')).to.deep.equal([[1, 2], [3]]);
      expect(await fastly('body.rows.cells')).to.deep.equal([[1, 2], [3], [4]]);
      expect(await fastly('body.rows.[cells]')).to.deep.equal([[[1, 2], [3]], [[4]]]);
    });

    it('concatenates numbers, booleans, null, arrays and objects as $string writes them', async () => {
      expect(await fastly('1 & true & null & 1.5 & (0.1 + 0.2) & [1, "a"] & { "k": 2 }')).to.equal('1truenull1.50.3[1,"a"]{"k":2}');
      expect(await fastly('$string(body.n / 3)')).to.equal('0.666666666666667');
    });

    it('filters with predicates: an index (negative from the end, rounded down), a condition, a list of indexes', async () => {
      expect(await fastly('body.items[0].id')).to.equal('a');
      expect(await fastly('body.items[-1].id')).to.equal('c');
      expect(await fastly('body.items[1.7].id')).to.equal('b');
      expect(await fastly('body.items[active].id')).to.equal('a');
      expect(await fastly('body.items[score > 5].id')).to.deep.equal(['b', 'c']);
      expect(await fastly('body.items[active = false or score = 7].id')).to.deep.equal(['b', 'c']);
      expect(await fastly('body.items[[0, 2]].id')).to.deep.equal(['a', 'c']);
      expect(await fastly('body.items.id[1]'), 'the predicate applies to each id').to.equal(undefined);
      expect(await fastly('(body.items.id)[1]')).to.equal('b');
    });

    it('compares, tests membership, and uses the caller bindings', async () => {
      expect(await fastly('body.two.id = [1, 2]')).to.equal(true);
      expect(await fastly('"a" in body.items.id')).to.equal(true);
      expect(await fastly('body.name in ["x", "y"] and body.n >= 2')).to.equal(true);
      expect(await fastly('$action.slug & ":" & $nobody', INPUT, { action: { slug: 'list-items' } })).to.equal('list-items:');
      expect(await fastly('$$.status = $.status')).to.equal(true);
    });

    it('maps an input that is an array as one value', async () => {
      expect(await fastly('$.id', [{ id: 1 }, { id: 2 }])).to.deep.equal([1, 2]);
      expect(await fastly('{ "n": $count($) }', [{ id: 1 }, { id: 2 }])).to.deep.equal({ n: 2 });
    });
  });

  describe('leaves to jsonata', () => {
    it('an expression outside the subset: a function definition still works', async () => {
      const compiled = compileExpression('$map(body.items, function($v) { $v.id & "!" })', ORIGIN);
      expect(fastPathOf(compiled.expression)).to.equal(null);
      expect(await evaluateGuarded(compiled, INPUT)).to.deep.equal(['a!', 'b!', 'c!']);
      expect(fastPathOf(guardedJsonata('body.items{ id: score }')), 'grouping').to.equal(null);
      expect(fastPathOf(guardedJsonata('$replace(body.name, /x/, "y")')), 'a regular expression outside $match').to.equal(null);
      expect(fastPathOf(guardedJsonata('$match(body.name, body.pattern)')), '$match without a regular expression literal').to.equal(null);
    });

    it('a type error, which surfaces as jsonata reports it, with its position', async () => {
      for (const [source, code] of [
        ['body.name < 1', 'T2009'],
        ['body.n < "1"', 'T2009'],
        ['body.items < 1', 'T2010'],
        ['body.name + 1', 'T2001'],
      ] as const) {
        const compiled = compileExpression(source, ORIGIN);
        expect(fastPathOf(compiled.expression), source).to.not.equal(null);
        expect(evaluateFast(fastPathOf(compiled.expression)!, INPUT, {})).to.equal(FELL_BACK);
        const error = await mappingFailure(evaluateGuarded(compiled, INPUT));
        expect(error.details).to.include({ reason: 'evaluation', code, file: ORIGIN.file, line: 20 });
        expect(error.details.column, source).to.equal(ORIGIN.column + source.search(/[<+]/));
      }
    });

    it('a built-in function that the caller binds to something else', async () => {
      const compiled = compileExpression('$uppercase(body.name)', ORIGIN);
      expect(await evaluateGuarded(compiled, INPUT)).to.equal('X');
      expect(await evaluateGuarded(compiled, INPUT, { uppercase: (s: string) => `${s}?` })).to.equal('x?');
    });

    it('a sequence longer than the limit, which jsonata refuses', async () => {
      const limits: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 20_000, maxDepth: 200, maxSequence: 10 };
      const compiled = compileExpression('[body.items.id]', ORIGIN, limits);
      const items = Array.from({ length: 11 }, (_, id) => ({ id }));
      expect(await evaluateGuarded(compiled, { body: { items: items.slice(0, 10) } })).to.have.length(10);
      const error = await mappingFailure(evaluateGuarded(compiled, { body: { items } }));
      expect(error.details).to.include({ reason: 'sequence', code: 'D2015', limit: 10 });
    });

  });

  describe('goes on resumably past its slice', () => {
    it('an evaluation that runs too long times out (D1012, at the step it reached), and the event loop keeps turning meanwhile', async () => {
      const limits: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 200, maxDepth: 200, maxSequence: 100_000 };
      const source = '$count($$.body.a.($count($$.body.a.($count($$.body.a)))))';
      const compiled = compileExpression(source, ORIGIN, limits);
      expect(fastPathOf(compiled.expression)).to.not.equal(null);
      const a = Array.from({ length: 1000 }, () => ({ x: 1 })); // a billion steps
      let turns = 0;
      const ticker = setInterval(() => turns++, 1);
      try {
        const error = await mappingFailure(evaluateGuarded(compiled, { body: { a } }));
        expect(error.details).to.include({ reason: 'timeout', code: 'D1012', limit: 200, setting: 'MAPPING_TIMEOUT_MS' });
      } finally {
        clearInterval(ticker);
      }
      expect(turns, 'timers ran during the evaluation').to.be.greaterThan(0);
    });
  });
});
