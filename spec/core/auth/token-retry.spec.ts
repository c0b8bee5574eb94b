import { expect } from 'chai';
import { tokenRetryDelayMs } from '../../../engine/core/auth/token-retry.ts';

describe('the wait between token endpoint attempts', () => {
  const settings = { attempts: 5, delayMs: 100, budgetMs: 10_000 };

  it('is a random time from 0 to delay × 2^(n-1) (full jitter)', () => {
    expect(tokenRetryDelayMs(settings, 1, undefined, () => 0)).to.equal(0);
    expect(tokenRetryDelayMs(settings, 1, undefined, () => 0.999)).to.equal(100);
    expect(tokenRetryDelayMs(settings, 3, undefined, () => 0.5)).to.equal(200);
    for (let i = 0; i < 100; i++) expect(tokenRetryDelayMs(settings, 4, undefined)).to.be.within(0, 800);
  });

  it("is the provider's Retry-After when it sent one, in seconds or as a date", () => {
    expect(tokenRetryDelayMs(settings, 1, '2', () => 0)).to.equal(2_000);
    const at = new Date(Date.now() + 60_000).toUTCString();
    expect(tokenRetryDelayMs(settings, 1, at, () => 0)).to.be.within(58_000, 60_000);
  });
});
