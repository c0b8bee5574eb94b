import { expect } from 'chai';
import { shareStrings } from '../../../engine/core/definitions/shared-strings.ts';

describe('shared strings of parsed definitions', () => {
  it('keeps the value as it was: the same objects, every scalar equal, long strings and non-strings untouched', () => {
    const long = 'x'.repeat(200);
    const value = { id: 'list-things', arguments: [{ key: 'limit', default: 25, hidden: false, list: { options: [{ value: 'open' }, null] } }], response: long, n: null };
    const before = structuredClone(value);
    const args = value.arguments;
    expect(shareStrings(value)).to.equal(value);
    expect(value.arguments).to.equal(args);
    expect(value).to.deep.equal(before);
  });

  it('answers the string itself for a bare string', () => {
    expect(shareStrings('Query')).to.equal('Query');
  });
});
