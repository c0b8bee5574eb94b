import { expect } from 'chai';
import { costTargets, orderIn, slowTargets, summarise, type Round } from '../../../scripts/bench/load-rounds.ts';
import type { LoadFigures } from '../../../scripts/bench/load.ts';
import { median } from '../../../scripts/bench/stats.ts';

const figures = (over: Partial<LoadFigures> = {}): LoadFigures => ({
  requestsPerSecond: 1000,
  p50Ms: 1,
  p90Ms: 2,
  p99Ms: 3,
  meanMs: 1,
  requests: 5000,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  durationSeconds: 5,
  ...over,
});

/** A round at one size: the proxy's and the gateway's (at info) req/s, CPU per request and one-connection p50. */
function roundOf(index: number, proxy: [number, number, number], gateway: [number, number, number], gatewayOver: Partial<LoadFigures> = {}, size = 10): Round {
  return {
    index,
    order: orderIn(index, ['proxy', 'gateway@info']),
    loaded: {
      [size]: {
        proxy: { figures: figures({ requestsPerSecond: proxy[0] }), cpuUsPerRequest: proxy[1], rssMb: 60 },
        'gateway@info': { figures: figures({ requestsPerSecond: gateway[0], ...gatewayOver }), cpuUsPerRequest: gateway[1], rssMb: 90 },
      },
    },
    oneConnection: { [size]: { proxy: figures({ p50Ms: proxy[2] }), 'gateway@info': figures({ p50Ms: gateway[2] }) } },
  };
}

describe('bench load rounds (proxy and gateways side by side)', () => {
  it('rotates the sides, so each runs first, second and third in turn', () => {
    const sides = ['proxy', 'gateway@info', 'gateway@silent'];
    expect([1, 2, 3, 4].map((i) => orderIn(i, sides))).to.deep.equal([
      ['proxy', 'gateway@info', 'gateway@silent'],
      ['gateway@info', 'gateway@silent', 'proxy'],
      ['gateway@silent', 'proxy', 'gateway@info'],
      ['proxy', 'gateway@info', 'gateway@silent'],
    ]);
  });

  it('takes the mean of the two middle values as the median of an even count', () => {
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(median([5, 1, 3])).to.equal(3);
    expect(median([])).to.be.NaN;
  });

  it('reports the medians of five rounds and holds the per-round ratios to the targets', () => {
    const rounds = [
      roundOf(1, [4000, 200, 0.4], [3000, 280, 0.6]),
      roundOf(2, [5000, 210, 0.5], [3000, 400, 0.9]),
      roundOf(3, [4200, 190, 0.4], [3100, 270, 0.65]),
      roundOf(4, [3800, 220, 0.45], [2900, 300, 0.7]),
      roundOf(5, [4100, 200, 0.4], [3000, 290, 0.62]),
    ];
    const summary = summarise(rounds, [10]);
    const gateway = summary.sizes[0]!.sides['gateway@info']!;
    expect(gateway.validRounds).to.deep.equal([1, 2, 3, 4, 5]);
    expect(summary.sizes[0]!.sides.proxy!.requestsPerSecond).to.equal(4100);
    expect(gateway.cpuUsPerRequest).to.equal(290);
    expect(gateway.rssMb).to.equal(90);
    // Ratios per round: 1.4, 1.905, 1.421, 1.364, 1.45 -> median 1.421.
    expect(gateway.cpuRatio).to.equal(1.421);
    // Shares per round: 0.75, 0.6, 0.738, 0.763, 0.732 -> median 0.738.
    expect(gateway.requestsShare).to.equal(0.738);
    // Added p50 per round: 0.2, 0.4, 0.25, 0.25, 0.22 -> median 0.25.
    expect(gateway.addedP50Ms).to.equal(0.25);
    expect(costTargets(summary).map((t) => [t.goal, t.met])).to.deep.equal([
      ['<= 2x', true],
      ['>= 50%', true],
    ]);
  });

  it('reports a missed target as missed', () => {
    const summary = summarise([roundOf(1, [4000, 100, 0.3], [1600, 370, 0.7])], [10]);
    const targets = costTargets(summary);
    expect(targets.map((t) => [t.goal, t.met])).to.deep.equal([
      ['<= 2x', false],
      ['>= 50%', false],
    ]);
    expect(targets[0]!.measured).to.equal('3.7x (370 against 100 µs)');
  });

  it("leaves a failing pass out of its side's medians, counts its failed requests and says why", () => {
    const rounds = [
      roundOf(1, [4000, 200, 0.4], [3000, 280, 0.6]),
      // A fast round that is fast because it failed: errors answer quickly.
      roundOf(2, [4000, 200, 0.4], [9000, 50, 0.1], { non2xx: 12, otherStatuses: { 502: 10, 504: 2 } }),
      roundOf(3, [4000, 200, 0.4], [3000, 300, 0.6], { timeouts: 1 }),
      roundOf(4, [4000, 200, 0.4], [2000, 320, 0.8], { requests: 0 }),
      roundOf(5, [4000, 200, 0.4], [2800, 300, 0.7]),
    ];
    const gateway = summarise(rounds, [10]).sizes[0]!.sides['gateway@info']!;
    expect(gateway.validRounds).to.deep.equal([1, 5]);
    expect(gateway.failedRequests).to.equal(13);
    expect(gateway.failures).to.deep.equal(['round 2: 12 non-2xx (10 x 502, 2 x 504)', 'round 3: 1 timeouts', 'round 4: no request answered']);
    expect(gateway.requestsPerSecond).to.equal(2900);
  });

  it('has no figures for a side that failed every round, and its target at 10,000 records is missed with the reason', () => {
    const summary = summarise([roundOf(1, [400, 2000, 4], [100, 9000, 9], { non2xx: 40, otherStatuses: { 502: 40 } }, 10_000)], [10_000]);
    const gateway = summary.sizes[0]!.sides['gateway@info']!;
    expect(gateway.validRounds).to.deep.equal([]);
    expect(gateway.requestsPerSecond).to.be.NaN;
    expect(costTargets(summary)).to.deep.equal([
      { target: 'gateway@info: runs of 10,000 records answered 200', goal: 'no failed request', measured: '40 failed (round 1: 40 non-2xx (40 x 502))', met: false },
    ]);
  });

  it('holds the slow part to 90% of the proxy at 512 and 2,048 connections', () => {
    const slow = summarise([roundOf(1, [4000, 200, 100], [3700, 400, 100], {}, 512), roundOf(1, [6000, 200, 100], [280, 400, 2700], {}, 2048)], [512, 2048]);
    expect(slowTargets(slow).map((t) => [t.target, t.met])).to.deep.equal([
      ['gateway@info req/s against the proxy\'s, 100 ms upstream, 512 connections', true],
      ['gateway@info req/s against the proxy\'s, 100 ms upstream, 2048 connections', false],
    ]);
  });
});
