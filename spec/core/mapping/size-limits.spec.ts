import { expect } from 'chai';
import jsonata from 'jsonata';
import { compileExpression, type GuardedExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';
import { runCommand } from '../../helpers/process.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list.yaml', line: 20, column: 5 };
/** Small limits so each case shows the bound without building much; a timeout only a missing bound would reach. */
const SMALL: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 20_000, maxString: 1000, maxResultBytes: 10_000 };
const DOUBLING = '( $f := function($s,$n){ $n=0 ? $s : $f($s & $s, $n-1) }; $f("ab", N) )';

async function failure(compiled: GuardedExpression, input: unknown = {}, bindings: Record<string, unknown> = {}): Promise<MappingError> {
  try {
    await evaluateGuarded(compiled, input, bindings);
  } catch (error) {
    expect(error).to.be.instanceOf(MappingError);
    return error as MappingError;
  }
  throw new Error('expected a MappingError');
}

describe('mappings cannot build strings or results past their size limits', () => {
  it('the sized $pad, $join and $string take the arguments jsonata passes a function value, as jsonata\'s own do ($map([1, 2, 3], $string))', async () => {
    for (const source of ['$map([1, 2, 3], $string)', '$map(["a"], $pad)', '$map([["a", "b"]], $join)']) {
      const plain = await jsonata(source).evaluate({}).then((value: unknown) => ({ value }), (error: { code?: string }) => ({ code: error.code }));
      const gateway = await evaluateGuarded(compileExpression(source, ORIGIN, SMALL), {}).then((value) => ({ value }), (error: MappingError) => ({ code: error.details.code }));
      expect(gateway, source).to.deep.equal(plain);
    }
  });

  it('string doubling in a recursion stops at MAPPING_MAX_STRING (reason size), located at the step that built it', async () => {
    const error = await failure(compileExpression(DOUBLING.replace('N', '12'), ORIGIN, SMALL)); // 8,192 characters without the bound
    expect(error.details).to.include({ reason: 'size', limit: 1000, setting: 'MAPPING_MAX_STRING', line: 20 });
    expect(error.message).to.match(/^definitions\/acme\/versions\/1\/actions\/list\.yaml:20:\d+: the mapping built a string of more than 1000 characters \(MAPPING_MAX_STRING\)$/);
    expect(error.status).to.equal(502);
  });

  it('a string past what V8 can hold, built inside a function the guard cannot see into ("Invalid string length"), is the MAPPING_MAX_STRING size error', async () => {
    // What $replace or $join throws at ~512 M characters, without building one here.
    const tooLong = () => {
      throw new RangeError('Invalid string length');
    };
    const error = await failure(compileExpression('$build()', ORIGIN, SMALL), {}, { build: tooLong });
    expect(error.details).to.include({ reason: 'size', limit: 1000, setting: 'MAPPING_MAX_STRING' });
    expect(error.message).to.match(/the mapping built a string of more than 1000 characters \(MAPPING_MAX_STRING\)$/);
  });

  it("the issue's doubling (27 times, then $uppercase) under the default limits is a size error, not a crash of the process", async function () {
    this.timeout(60_000);
    // In a child: without the bound, V8 aborts the whole process ("invalid size"), which would take mocha with it.
    const script = `
      import { compileExpression } from './engine/core/mapping/compile.ts';
      import { evaluateGuarded } from './engine/core/mapping/evaluate.ts';
      const source = '( $f := function($s,$n){ $n=0 ? $s : $f($s & $s, $n-1) }; $length($uppercase($f("ab",27))) )';
      try { console.log(JSON.stringify(await evaluateGuarded(compileExpression(source, { file: 'x.yaml', line: 1, column: 1 }), {}))); }
      catch (e) { console.log(e.details?.reason, e.details?.setting); }`;
    const { code, stdout, stderr } = await runCommand(['--import', 'tsx', '--input-type=module', '--max-old-space-size=512', '-e', script], {});
    expect({ code, stdout: stdout.trim() }, stderr.slice(-500)).to.deep.equal({ code: 0, stdout: 'size MAPPING_MAX_STRING' });
  });

  for (const [name, source] of [
    ['$pad to a huge width', '$pad("", 1000000000)'],
    ['$join of many copies of a string', '$join([1..100].($$.s))'],
    ['$string of an object that refers to another many times over', '( $f := function($o,$n){ $n=0 ? $o : $f({"a": $o, "b": $o}, $n-1) }; $string($f({"x": 1}, 12)) )'],
    ['$uppercase of a string built past the limit', '$uppercase(s & s & s & s & s & s & s & s & s & s & s & s)'],
  ] as const) {
    it(`${name} is refused with reason size before it is built`, async () => {
      // room for the values they are given: the string they would build is what goes over
      const error = await failure(compileExpression(source, ORIGIN, { ...SMALL, maxResultBytes: 10_000_000 }), { s: 'x'.repeat(100) });
      expect(error.details).to.include({ reason: 'size', setting: 'MAPPING_MAX_STRING' });
    });
  }

  it('strings each under the limit that add up past MAPPING_MAX_RESULT_BYTES in one evaluation are refused (reason size)', async () => {
    const error = await failure(compileExpression('$count([1..200].($pad("", 900, $string($))))', ORIGIN, SMALL));
    expect(error.details).to.include({ reason: 'size', limit: 10_000, setting: 'MAPPING_MAX_RESULT_BYTES' });
    expect(error.message).to.include('built more than 10000 characters of strings in all');
  });

  it('a result whose JSON is over MAPPING_MAX_RESULT_BYTES is refused, on the fast path as on jsonata', async () => {
    const fast = compileExpression('{ "a": s, "b": s, "c": [s, s, s] }', ORIGIN, SMALL);
    expect(fastPathOf(fast.expression), 'in the fast subset').to.not.equal(null);
    const input = { s: 'y'.repeat(2500) }; // each string of the input may pass; the result holds five of them
    expect((await failure(fast, input)).details).to.include({ reason: 'size', limit: 10_000, setting: 'MAPPING_MAX_RESULT_BYTES' });
    const slow = compileExpression('( $x := s; { "a": $x, "b": $x, "c": [$x, $x, $x] } )', ORIGIN, SMALL);
    expect((await failure(slow, input)).details).to.include({ reason: 'size', setting: 'MAPPING_MAX_RESULT_BYTES' });
    expect(await evaluateGuarded(fast, { s: 'y'.repeat(1500) })).to.have.property('a');
  });

  it('an object whose JSON doubles at each level is refused as a result at once (its shared parts measured once)', async () => {
    const error = await failure(compileExpression('( $f := function($o,$n){ $n=0 ? $o : $f({"a": $o, "b": $o}, $n-1) }; $f({"x": 1}, 60) )', ORIGIN, SMALL));
    expect(error.details).to.include({ reason: 'size', setting: 'MAPPING_MAX_RESULT_BYTES' });
  });

  it('an object whose JSON doubles at each level is refused when it is made, before = compares it whole', async () => {
    // without the bound, = walks every copy: 2^22 leaves took 3.8 s here, each further level doubles it
    const error = await failure(compileExpression('( $f := function($o,$n){ $n=0 ? $o : $f({"a": $o, "b": $o}, $n-1) }; $f({"x": 1}, 40) = $f({"x": 1}, 40) )', ORIGIN, SMALL));
    expect(error.details).to.include({ reason: 'size', limit: 10_000, setting: 'MAPPING_MAX_RESULT_BYTES' });
    expect(error.message).to.include('built or returned a value of more than 10000 characters of JSON');
  });

  it('an array doubled by $append stops at MAPPING_MAX_SEQUENCE (jsonata counts only the sequences it builds)', async () => {
    const limits = { ...SMALL, maxSequence: 1000 };
    const error = await failure(compileExpression('( $f := function($a,$n){ $n=0 ? $a : $f($append($a,$a), $n-1) }; $count($f([1], 40)) )', ORIGIN, limits));
    expect(error.details).to.include({ reason: 'sequence', setting: 'MAPPING_MAX_SEQUENCE' });
  });

  it('strings of the input pass as they are, and ordinary mappings under the limits are unchanged', async () => {
    const big = 'z'.repeat(5000); // over maxString, but the upstream's, not built by the mapping
    expect(await evaluateGuarded(compileExpression('{ "v": s }', ORIGIN, SMALL), { s: big })).to.deep.equal({ v: big });
    expect(await evaluateGuarded(compileExpression('( $x := s; { "v": $x } )', ORIGIN, SMALL), { s: big })).to.deep.equal({ v: big });
    expect(await evaluateGuarded(compileExpression('$join(["a", "b"], ",") & $pad("x", 3, "-") & $string({"k": [1]})', ORIGIN, SMALL), {})).to.equal('a,bx--{"k":[1]}');
    expect(await evaluateGuarded(compileExpression('$string({"k": 1}, true)', ORIGIN, SMALL), {})).to.equal('{\n  "k": 1\n}');
    expect(await evaluateGuarded(compileExpression('( $j := $join; $j(["a"], "") )', ORIGIN, SMALL), {})).to.equal('a');
  });
});
