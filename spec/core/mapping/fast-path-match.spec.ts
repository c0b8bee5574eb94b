import { expect } from 'chai';
import fc from 'fast-check';
import { guardedJsonata } from '../../../engine/core/mapping/compile.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { expectAgreement } from '../../support/fast-path-agreement.ts';

/**
 * Differential test of `$match` with a regular expression literal: the fast
 * path answers as jsonata does on GitHub's pagination expression over
 * generated `Link` headers, and on the shapes of result and of argument
 * that fn.match and the matcher closure treat apart.
 */
const CURSOR = '$match(headers.link, /[?&]page=(\\d+)>; rel="next"/).groups[0]';

const rel = fc.constantFrom('next', 'last', 'prev', 'first');
const link = fc
  .record({ page: fc.integer({ min: 0, max: 120 }), rel, amp: fc.boolean(), space: fc.constantFrom('', ' ', '  ', '\t'), quote: fc.constantFrom('"', '') })
  .map(({ page, rel, amp, space, quote }) => `<https://api.github.com/repos/o/r/issues?${amp ? 'per_page=30&' : ''}page=${page}>;${space}rel=${quote}${rel}${quote}`);
const linkHeader = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', 'garbage', '<https://x?page=2>; rel="next"'),
  fc.tuple(fc.array(link, { maxLength: 4 }), fc.constantFrom(', ', ',', ' ,  ')).map(([links, separator]) => links.join(separator)),
);

describe('the fast path on $match with a regular expression literal', () => {
  it('takes $match with a literal, with or without a limit, and leaves any other regular expression to jsonata', () => {
    expect(fastPathOf(guardedJsonata(CURSOR))).to.not.equal(null);
    expect(fastPathOf(guardedJsonata('$match(body.name, /a(b)?/i, 2)'))).to.not.equal(null);
    for (const source of ['$match(body.name, body.pattern)', '$match(/x/)', '$match(body.name, /x/, 1, 2)', '$contains(body.name, /x/)', '$match(body.name, /x/)[0] ~> $string']) {
      expect(fastPathOf(guardedJsonata(source)), source).to.equal(null);
    }
  });

  it('reads the next page from generated Link headers as jsonata does', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(linkHeader, async (header) => {
        if (await expectAgreement(CURSOR, { status: 200, headers: header === undefined ? {} : { link: header }, body: [] })) answered++;
      }),
      { numRuns: 300, seed: 20261121 },
    );
    expect(answered).to.equal(300);
  });

  it('returns what jsonata returns: nothing, one match, several, groups that did not match, limits', async () => {
    const names = ['', 'abc', 'ab ab AB', 'a-b-ab', 'xyz', 'é b', 'a\nab'];
    const sources = [
      '$match(body.name, /a(b)?/)',
      '$match(body.name, /a(b)?/i)',
      '$match(body.name, /^a/m)',
      '$match(body.name, /(a)|(b)/)',
      '$match(body.name, /a(b)?/, 1)',
      '$match(body.name, /a(b)?/, 0)',
      '$match(body.name, /a(b)?/, body.limit)',
      '$match(body.name, /b/).index',
      '$match(body.name, /a(b)?/).groups',
      '[$match(body.name, /a/)]',
      '$match(body.name, /b/)[0].match',
      '$count($match(body.name, /a/))',
      '{ "m": $match(body.name, /a(b)?/).match }',
    ];
    for (const source of sources) {
      for (const name of names) {
        for (const limit of [undefined, 0, 1, 2.5]) {
          expect(await expectAgreement(source, { body: { name, limit } }), `${source} on ${name}`).to.equal(true);
        }
      }
    }
  });

  it('answers nothing for a missing string, and leaves jsonata the errors: zero-length matches, a negative limit, a string that is not one', async () => {
    expect(await expectAgreement('$match(body.none, /a/)', { body: {} })).to.equal(true);
    expect(await expectAgreement('$match(body.name, /x*/)', { body: { name: '' } })).to.equal(true);
    for (const [source, name] of [
      ['$match(body.name, /x*/)', 'abc'], // D1004
      ['$match(body.name, /a/, -1)', 'abc'], // D3040
      ['$match(body.name, /a/)', 12], // T0410
      ['$match(body.name, /a/, "1")', 'abc'], // T0410
      ['$match(body.name, /a/)', ['a', 'b']], // T0410
    ] as const) {
      expect(await expectAgreement(source, { body: { name } }), `${source} on ${JSON.stringify(name)}`).to.equal(false);
    }
  });

  it('leaves $match to jsonata when the caller binds $match', async () => {
    expect(await expectAgreement('$match(body.name, /a/)', { body: { name: 'a' } }, { match: 'mine' })).to.equal(false);
  });
});
