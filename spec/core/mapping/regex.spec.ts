import { expect } from 'chai';
import jsonata from 'jsonata';
import { performance } from 'node:perf_hooks';
import { jsonataSyntaxError } from '../../../engine/core/definitions/jsonata-syntax/index.ts';
import { compileExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded, toJson } from '../../../engine/core/mapping/evaluate.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list.yaml', line: 10, column: 3 };
/** 28 a's and a `!`: over 10 s of backtracking for V8's engine (each further a doubles it), even once it has compiled the regex to native code; microseconds for a linear one. */
const EVIL = 'a'.repeat(28) + '!';
/** So generous that a linear engine never comes near it, and a backtracking one always passes it. */
const BOUND_MS = 3000;

/** The value, or the error code (jsonata's, or the one a MappingError carries). */
async function outcome(run: () => Promise<unknown>): Promise<{ value: unknown } | { code: unknown }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { code: error instanceof MappingError ? error.details.code : (error as { code?: unknown }).code };
  }
}

async function timed(source: string, input: unknown): Promise<{ result: unknown; ms: number }> {
  const compiled = compileExpression(source, ORIGIN);
  const t0 = performance.now();
  const result = await evaluateGuarded(compiled, input);
  return { result, ms: performance.now() - t0 };
}

describe('regular expressions in mappings run on a linear-time engine', () => {
  for (const [name, source, expected] of [
    ['$match (the fast path)', '$count($match(value, /(a+)+$/))', 0],
    ['$match with a limit (the fast path)', '$count($match(value, /(a+)+$/, 2))', 0],
    ['$contains', '$contains(value, /(a+)+$/)', false],
    ['$replace', '$length($replace(value, /(a+)+$/, "x"))', 29],
    ['$split', '$count($split(value, /(a+)+$/))', 1],
    ['$match inside a function (jsonata)', '$count($map([value], function($v) { $match($v, /(a+)+$/) }))', 0],
  ] as const) {
    it(`${name}: (a+)+$ on an upstream value of 28 a's and a ! answers at once`, async () => {
      const { result, ms } = await timed(source, { value: EVIL });
      expect(result).to.equal(expected);
      expect(ms, 'a backtracking engine takes seconds here').to.be.below(BOUND_MS);
    });
  }

  it('the fast path still takes $match with a literal, on the same engine', () => {
    expect(fastPathOf(compileExpression('$match(value, /(a+)+$/)', ORIGIN).expression)).to.not.equal(null);
  });

  // The same answers as jsonata with JavaScript's RegExp, where the two engines' syntax differs or is easy to get wrong.
  const agreement: [string, unknown][] = [
    ['$match(s, /(?<year>\\d{4})-(\\d{2})?/)', { s: 'on 2024- and 2025-05' }],
    ['$match(s, /(a)|(b)/)', { s: 'xbya' }],
    ['$match(s, /^b.c$/m)', { s: 'a\nbxc\nd' }],
    ['$match(s, /ÉTÉ/i)', { s: 'un été chaud' }],
    ['$match(s, /\\s+/)', { s: 'a\u00a0b\u2003c\u000bd e' }],
    ['$match(s, /[\\s,]+/)', { s: 'a,\u00a0b' }],
    ['$match(s, /\\S+/)', { s: 'a\u00a0b c' }],
    ['$match(s, /a.b/)', { s: 'a\rb a\nb a\u2028b axb' }],
    ['$match(s, /[.]/)', { s: 'a.b' }],
    ['$match(s, /😀(.)/)', { s: 'x😀yz😀é' }],
    ['$match(s, /\\u00e9|\\x41/)', { s: 'Aé' }],
    ['$match(s, /a\\/b/)', { s: 'a/b' }],
    ['$replace(s, /(\\w+)@(\\w+)/, "$2 at $1")', { s: 'ada@example, grace@navy' }],
    ['$split(s, /\\s*;\\s*/)', { s: 'a ; b;c  ;d' }],
    ['$contains(s, /^[A-Z]{2}\\d+$/)', { s: 'GB123' }],
    ['$match(s, /a*/)', { s: 'aab' }],
  ];
  for (const [source, input] of agreement) {
    it(`${source} answers what jsonata with RegExp answers`, async () => {
      const native = await outcome(async () => toJson(await jsonata(source).evaluate(input)));
      const linear = await outcome(() => evaluateGuarded(compileExpression(source, ORIGIN), input));
      expect(linear).to.deep.equal(native);
    });
  }

  describe('features a linear engine lacks', () => {
    for (const [feature, source] of [
      ['a backreference', '$match(s, /(a)\\1/)'],
      ['a lookahead', '$replace(s, /a(?=b)/, "")'],
      ['a negative lookahead', '$contains(s, /a(?!b)/)'],
      ['a lookbehind', '$split(s, /(?<=a)b/)'],
    ] as const) {
      it(`${feature} is a located problem at load time, not a silent difference`, () => {
        const error = jsonataSyntaxError(`(\n  $x := 1;\n  ${source}\n)`);
        expect(error?.code).to.equal('REGEX');
        expect(error?.message).to.match(/^the regular expression \/.+\/ cannot run on the linear-time engine \(.+\); backreferences and lookaround are not supported$/);
        const offset = (error!.position ?? 0) - 1;
        expect(`(\n  $x := 1;\n  ${source}\n)`[offset]).to.equal('/');
      });

      it(`${feature} is a MAPPING_ERROR with reason regex when it runs`, async () => {
        try {
          await evaluateGuarded(compileExpression(source, ORIGIN), { s: 'ab' });
          expect.fail('expected a MappingError');
        } catch (error) {
          expect(error).to.be.instanceOf(MappingError);
          expect((error as MappingError).details).to.include({ reason: 'regex', code: 'REGEX', line: 10 });
          expect((error as MappingError).message).to.include('backreferences and lookaround are not supported');
        }
      });
    }

    it('a regular expression the engine can run, and a division, are no problem', () => {
      expect(jsonataSyntaxError('$match(s, /(a+)+$/i).groups[0] & $string(4 / 2)')).to.equal(null);
    });
  });
});
