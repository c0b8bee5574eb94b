import { expect } from 'chai';
import { parseRetryAfter } from '../../../engine/core/run/rate-limit.ts';

describe('parseRetryAfter: how long a rate-limited app asks to wait', () => {
  it('reads whole seconds (RFC 9110 delay-seconds)', () => {
    expect(parseRetryAfter('0')).to.equal(0);
    expect(parseRetryAfter(' 60 ')).to.equal(60_000);
  });

  it('reads decimal seconds, as Shopify sends them ("Retry-After: 2.0")', () => {
    expect(parseRetryAfter('2.0')).to.equal(2000);
    expect(parseRetryAfter('60.0')).to.equal(60_000);
    expect(parseRetryAfter('0.25')).to.equal(250);
  });

  it('reads an HTTP date as the time left until it', () => {
    const now = Date.parse('2026-11-24T05:00:00Z');
    expect(parseRetryAfter('Tue, 24 Nov 2026 05:00:30 GMT', now)).to.equal(30_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 04:00:00 GMT', now)).to.equal(0);
  });

  it('ignores what is neither (no header, negative, garbage)', () => {
    expect(parseRetryAfter(undefined)).to.equal(null);
    expect(parseRetryAfter('')).to.equal(null);
    expect(parseRetryAfter('-5')).to.equal(null);
    expect(parseRetryAfter('soon')).to.equal(null);
    expect(parseRetryAfter('1.')).to.equal(null);
  });
});
