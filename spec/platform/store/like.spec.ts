import { expect } from 'chai';
import fc from 'fast-check';
import { caseVariants, foldCase } from '../../../engine/platform/store/like/case-fold.ts';
import { likeMatcher, likeSegments } from '../../../engine/platform/store/like/like-pattern.ts';
import { replaceLike } from '../../../engine/platform/store/like/replace-like.ts';

/**
 * The store's `$like` matcher (what the embedded store runs) against
 * references that backtrack, on inputs short enough for them: the regular
 * expression `=like=` used to be, and the same over case-folded text for
 * characters beyond ASCII.
 */
// Syntax characters only: the `u` flag refuses any other escape.
const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
/** The old translation, verbatim: `^seg.*seg$`, case-insensitive. */
const oldRegex = (pattern: string) => new RegExp(`^${pattern.split(/\*+/).map(escapeRegExp).join('.*')}$`, 'i');
/** The same idea on folded text, any character (line breaks included) for `*`. */
const foldedReference = (pattern: string, value: string) =>
  new RegExp(`^${likeSegments(foldCase(pattern)).map(escapeRegExp).join('[\\s\\S]*')}$`, 'u').test(foldCase(value));

const ascii = ['a', 'A', 'b', 'B', 'c', '.', '(', ')', '\\', '[', '^', '$', '-', ' ', '?', '+'];
const wide = [...ascii, '\n', 'é', 'É', 'ß', 'ẞ', 's', 'S', 'ſ', 'k', 'K', '\u212a', 'i', 'I', 'ı', 'İ', 'σ', 'ς', 'Σ', '𐐨', '𐐀', '中'];
const text = (alphabet: string[], maxLength: number) => fc.array(fc.constantFrom(...alphabet), { maxLength }).map((a) => a.join(''));
const pattern = (alphabet: string[]) => fc.array(fc.constantFrom(...alphabet, '*', '*'), { minLength: 1, maxLength: 8 }).map((a) => a.join(''));

describe('$like: the matcher', () => {
  it('answers what the old regular expression answered, on ASCII text without line breaks', () => {
    fc.assert(
      fc.property(pattern(ascii), text(ascii, 12), (p, v) => {
        expect(likeMatcher(p)(v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`).to.equal(oldRegex(p).test(v));
      }),
      { numRuns: 5000, seed: 1401 },
    );
  });

  it('answers what a backtracking search over case-folded text answers, on any characters', () => {
    fc.assert(
      fc.property(pattern(wide), text(wide, 12), (p, v) => {
        expect(likeMatcher(p)(v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`).to.equal(foldedReference(p, v));
      }),
      { numRuns: 5000, seed: 1402 },
    );
  });

  it('matches a value built from the pattern itself, whatever fills the wildcards', () => {
    fc.assert(
      fc.property(pattern(wide), fc.array(text(wide, 5), { minLength: 11, maxLength: 11 }), (p, fillers) => {
        const value = likeSegments(p).map((segment, i) => (i === 0 ? segment : fillers[i]! + segment)).join('');
        expect(likeMatcher(p)(value), `${JSON.stringify(p)} on ${JSON.stringify(value)}`).to.equal(true);
      }),
      { numRuns: 2000, seed: 1403 },
    );
  });

  it('keeps the documented semantics: anchored, * for any characters, the rest literal, only strings', () => {
    const cases: [string, unknown, boolean][] = [
      ['acme*', 'Acme Corp', true],
      ['gam', 'Gamma', false],
      ['*a', 'Gamma', true],
      ['a*b', 'a*b', true],
      ['Delta.Co', 'DeltaxCo', false],
      ['a**b', 'ab', true],
      ['ab*ba', 'aba', false],
      ['*', '', true],
      ['*x*', 'line\nx\nbreak', true],
      ['*', null, false],
      ['*', 42, false],
      ['*', ['a'], false],
    ];
    for (const [p, value, expected] of cases) expect(likeMatcher(p)(value), `${p} on ${JSON.stringify(value)}`).to.equal(expected);
  });

  it('takes the worst case the limits allow at once: 10 wildcards, a 200-character value, no match and a match', () => {
    // The old regular expression does not finish this in minutes; the matcher makes one pass per piece.
    const value = `${'a'.repeat(199)}c`;
    expect(likeMatcher('*a*a*a*a*a*a*a*a*a*b')(value)).to.equal(false);
    expect(likeMatcher('*A*a*A*a*a*A*a*a*a*C')(value)).to.equal(true);
    const long = 'a'.repeat(100_000);
    expect(likeMatcher(`*${'a'.repeat(9)}b*a*a*a*a*a*a*a*a*a`)(long)).to.equal(false);
  });
});

describe('$like: case-insensitivity (the same table on both adapters)', () => {
  const same: [string, string][] = [['a', 'A'], ['é', 'É'], ['ſ', 's'], ['ſ', 'S'], ['\u212a', 'k'], ['ς', 'σ'], ['Σ', 'ς'], ['ẞ', 'ß'], ['𐐨', '𐐀'], ['µ', 'μ']];
  const different: [string, string][] = [['ß', 'ss'], ['ı', 'i'], ['ı', 'I'], ['İ', 'i'], ['İ', 'I'], ['a', 'á']];
  for (const [x, y] of same) {
    it(`${x} matches ${y}`, () => {
      expect(likeMatcher(x)(y)).to.equal(true);
      expect(likeMatcher(y)(x)).to.equal(true);
      expect(caseVariants(x)).to.include(y);
    });
  }
  for (const [x, y] of different) {
    it(`${x} does not match ${y}`, () => {
      expect(likeMatcher(x)(y)).to.equal(false);
      expect(likeMatcher(y)(x)).to.equal(false);
    });
  }
});

describe('$like: rewriting a filter', () => {
  const mark = (path: string, p: string) => ({ [`like:${path}`]: p });
  it('replaces $like wherever it is and keeps everything else as it was', () => {
    const when = new Date('2026-01-01T00:00:00Z');
    const filter = { $and: [{ companyId: 'c1' }, { $or: [{ name: { $like: 'a*' } }, { createdOn: { $lt: when } }] }] };
    expect(replaceLike(filter, mark)).to.deep.equal({ $and: [{ companyId: 'c1' }, { $or: [{ 'like:name': 'a*' }, { createdOn: { $lt: when } }] }] });
  });
  it('keeps other conditions of the same object and field beside it', () => {
    expect(replaceLike({ companyId: 'c1', name: { $like: 'a*', $ne: 'ab' } }, mark)).to.deep.equal({
      $and: [{ companyId: 'c1', name: { $ne: 'ab' } }, { 'like:name': 'a*' }],
    });
  });
  it('leaves a filter without $like equal to itself', () => {
    const filter = { id: { $in: ['a', 'b'] }, name: 'x' };
    expect(replaceLike(filter, mark)).to.deep.equal(filter);
  });
});
