import { expect } from 'chai';
import { retryDelayMs } from '../../../engine/tenancy/webhooks/backoff.ts';

describe('webhook retry delays', () => {
  const settings = { retryBaseMs: 30_000, retryMaxDelayMs: 3_600_000 };

  it('doubles from WEBHOOK_RETRY_BASE_MS per attempt, jittered between half and all of it', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, () => 1))).to.deep.equal([30_000, 60_000, 120_000, 240_000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, () => 0))).to.deep.equal([15_000, 30_000, 60_000, 120_000]);
    expect(retryDelayMs(2, settings, () => 0.5)).to.equal(45_000);
  });

  it('stops growing at WEBHOOK_RETRY_MAX_DELAY_MS, however many attempts (no overflow)', () => {
    expect(retryDelayMs(8, settings, () => 1)).to.equal(3_600_000);
    expect(retryDelayMs(1_000, settings, () => 1)).to.equal(3_600_000);
    expect(retryDelayMs(1_000, settings, () => 0)).to.equal(1_800_000);
  });

  it('reaches the 24 h default window in about 30 attempts', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed <= 86_400_000) elapsed += retryDelayMs(++attempts, settings, () => 1);
    expect(attempts).to.be.within(25, 35);
  });
});
