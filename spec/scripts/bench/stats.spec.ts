import { expect } from 'chai';
import { median, percentile } from '../../../scripts/bench/stats.ts';

describe('bench stats', () => {
  it('the median of an odd count is its middle value, whatever the order', () => {
    expect(median([3, 1, 2])).to.equal(2);
    expect(median([5])).to.equal(5);
  });

  it('the median of an even count is the mean of the two middle values, not the lower one', () => {
    // three rounds of a ratio are odd; two or four (a round dropped) must not report the better half
    expect(median([3.29, 3.48])).to.be.closeTo(3.385, 1e-12);
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(median([10, 20, 30, 40, 50, 60])).to.equal(35);
  });

  it('the median of nothing is NaN, not a number made up', () => {
    expect(median([])).to.be.NaN;
  });

  it('sorts numbers as numbers (10 after 9)', () => {
    expect(median([9, 10, 100])).to.equal(10);
    expect(median([9, 10])).to.equal(9.5);
  });

  it('percentile stays the nearest rank', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 90)).to.equal(9);
    expect(percentile(sorted, 99)).to.equal(10);
    expect(percentile(sorted, 50)).to.equal(5);
  });
});
