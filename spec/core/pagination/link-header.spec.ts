import { expect } from 'chai';
import { linkWithRel, parseLinkHeader } from '../../../engine/core/pagination/index.ts';

describe('the Link header parser (RFC 8288)', () => {
  it("reads GitHub's header: several links, quoted rels", () => {
    const header = '<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"';
    expect(linkWithRel(header, 'next')).to.equal('https://api.github.com/repositories/1/issues?page=2');
    expect(linkWithRel(header, 'last')).to.equal('https://api.github.com/repositories/1/issues?page=5');
    expect(linkWithRel(header, 'prev')).to.equal(undefined);
  });

  it("reads Shopify's page_info links, bare and upper-case rels, and rel lists", () => {
    expect(linkWithRel('<https://shop.example/admin/api/2024-01/products.json?limit=50&page_info=abc>; rel=next', 'next')).to.equal('https://shop.example/admin/api/2024-01/products.json?limit=50&page_info=abc');
    expect(linkWithRel('<https://a.example/p?page=3>; REL="Next Last"', 'next')).to.equal('https://a.example/p?page=3');
    expect(linkWithRel('<https://a.example/p?page=3>; rel="next last"', 'last')).to.equal('https://a.example/p?page=3');
  });

  it('keeps commas and semicolons inside <...>, and commas inside quoted values', () => {
    const header = '<https://a.example/p?ids=1,2;3&page=1>; rel="prev"; title="a, b; c", <https://a.example/p?ids=1,2;3&page=3>; title="x, \\"y\\""; rel="next"';
    expect(parseLinkHeader(header)).to.deep.equal([
      { target: 'https://a.example/p?ids=1,2;3&page=1', params: { rel: 'prev', title: 'a, b; c' } },
      { target: 'https://a.example/p?ids=1,2;3&page=3', params: { title: 'x, "y"', rel: 'next' } },
    ]);
    expect(linkWithRel(header, 'next')).to.equal('https://a.example/p?ids=1,2;3&page=3');
  });

  it('takes the first rel of a link, and skips malformed parts without throwing', () => {
    expect(linkWithRel('<https://a.example/1>; rel="prev"; rel="next"', 'next')).to.equal(undefined);
    expect(linkWithRel('garbage, "quoted, comma", <https://a.example/2>; rel="next"', 'next')).to.equal('https://a.example/2');
    expect(linkWithRel('<https://a.example/unterminated; rel="next"', 'next')).to.equal(undefined);
    expect(linkWithRel('', 'next')).to.equal(undefined);
    expect(linkWithRel(undefined, 'next')).to.equal(undefined);
  });
});
