import { expect } from 'chai';
import { firstIn, orderIn, summarise, type Round } from '../../../scripts/bench/load-rounds.ts';
import type { LoadFigures } from '../../../scripts/bench/load.ts';

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

/** A round at 10 records only: the proxy's and the gateway's req/s, CPU per request and one-connection p50. */
function roundOf(index: number, proxy: [number, number, number], gateway: [number, number, number], gatewayOver: Partial<LoadFigures> = {}): Round {
  return {
    index,
    first: firstIn(index),
    loaded: {
      10: {
        proxy: { figures: figures({ requestsPerSecond: proxy[0] }), cpuUsPerRequest: proxy[1] },
        gateway: { figures: figures({ requestsPerSecond: gateway[0], ...gatewayOver }), cpuUsPerRequest: gateway[1] },
      },
    },
    oneConnection: { 10: { proxy: figures({ p50Ms: proxy[2] }), gateway: figures({ p50Ms: gateway[2] }) } },
  };
}

describe('bench load rounds (proxy and gateway side by side)', () => {
  it('alternates which target runs first', () => {
    expect([1, 2, 3, 4, 5].map(firstIn)).to.deep.equal(['proxy', 'gateway', 'proxy', 'gateway', 'proxy']);
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
    expect(summary.valid).to.deep.equal([1, 2, 3, 4, 5]);
    const [ten] = summary.sizes;
    expect(ten!.proxy.requestsPerSecond).to.equal(4100);
    expect(ten!.gateway.cpuUsPerRequest).to.equal(290);
    // Ratios per round: 1.4, 1.905, 1.421, 1.364, 1.45 -> median 1.421.
    expect(ten!.cpuRatio).to.equal(1.421);
    // Shares per round: 0.75, 0.6, 0.738, 0.763, 0.732 -> median 0.738.
    expect(ten!.requestsShare).to.equal(0.738);
    // Added p50 per round: 0.2, 0.4, 0.25, 0.25, 0.22 -> median 0.25.
    expect(ten!.addedP50Ms).to.equal(0.25);
    expect(summary.targets.map((t) => t.met)).to.deep.equal([true, true, true]);
  });

  it('reports a missed target as missed', () => {
    const summary = summarise([roundOf(1, [4000, 100, 0.3], [1600, 370, 0.7])], [10]);
    expect(summary.targets.map((t) => [t.goal, t.met])).to.deep.equal([
      ['<= 1.5x', false],
      ['>= 70%', false],
      ['<= 0.3 ms', false],
    ]);
    expect(summary.targets[0]!.measured).to.equal('3.7x (370 against 100 µs)');
  });

  it('leaves out a round in which a request failed, and says why', () => {
    const rounds = [
      roundOf(1, [4000, 200, 0.4], [3000, 280, 0.6]),
      // A fast round that is fast because it failed: errors answer quickly.
      roundOf(2, [4000, 200, 0.4], [9000, 50, 0.1], { non2xx: 12, otherStatuses: { 502: 10, 504: 2 } }),
      roundOf(3, [4000, 200, 0.4], [3000, 300, 0.6], { timeouts: 1 }),
      roundOf(4, [4000, 200, 0.4], [2000, 320, 0.8], { requests: 0 }),
      roundOf(5, [4000, 200, 0.4], [2800, 300, 0.7]),
    ];
    const summary = summarise(rounds, [10]);
    expect(summary.valid).to.deep.equal([1, 5]);
    expect(summary.invalid).to.deep.equal([
      { round: 2, reason: 'gateway at 10 records: 12 non-2xx (10 x 502, 2 x 504)' },
      { round: 3, reason: 'gateway at 10 records: 1 timeouts' },
      { round: 4, reason: 'gateway at 10 records: no request answered' },
    ]);
    // Rounds 1 and 5: 3000 and 2800 req/s, the median of an even count their mean.
    expect(summary.sizes[0]!.gateway.requestsPerSecond).to.equal(2900);
  });

  it('rotates three targets (with a baseline) so each runs first, second and third in turn', () => {
    const sides = ['proxy', 'gateway', 'baseline'] as const;
    expect([1, 2, 3, 4].map((i) => orderIn(i, sides))).to.deep.equal([
      ['proxy', 'gateway', 'baseline'],
      ['gateway', 'baseline', 'proxy'],
      ['baseline', 'proxy', 'gateway'],
      ['proxy', 'gateway', 'baseline'],
    ]);
    expect([1, 2].map((i) => orderIn(i, ['proxy', 'gateway']))).to.deep.equal([
      ['proxy', 'gateway'],
      ['gateway', 'proxy'],
    ]);
  });

  it('holds the gateway to a baseline measured in the same rounds, and leaves out a round where the baseline failed', () => {
    const withBaseline = (r: Round, rps: number, cpu: number, p50: number, over: Partial<LoadFigures> = {}): Round => ({
      ...r,
      loaded: { 10: { ...r.loaded[10]!, baseline: { figures: figures({ requestsPerSecond: rps, ...over }), cpuUsPerRequest: cpu } } },
      oneConnection: { 10: { ...r.oneConnection[10]!, baseline: figures({ p50Ms: p50 }) } },
    });
    const summary = summarise(
      [
        withBaseline(roundOf(1, [4000, 200, 0.4], [3000, 300, 0.6]), 2000, 600, 0.9),
        withBaseline(roundOf(2, [4000, 200, 0.4], [3000, 330, 0.6]), 2500, 500, 0.8),
        withBaseline(roundOf(3, [4000, 200, 0.4], [3000, 300, 0.6]), 2000, 400, 0.7, { timeouts: 2 }),
      ],
      [10],
    );
    expect(summary.invalid).to.deep.equal([{ round: 3, reason: 'baseline at 10 records: 2 timeouts' }]);
    const [ten] = summary.sizes;
    expect(ten!.baseline!.cpuUsPerRequest).to.equal(550);
    // Per round: 300/600 = 0.5, 330/500 = 0.66 -> median 0.58; req/s 1.5 and 1.2 -> 1.35; p50 -0.3 and -0.2 -> -0.25.
    expect(ten!.vsBaseline).to.deep.equal({ cpuRatio: 0.58, requestsShare: 1.35, p50DifferenceMs: -0.25 });
    expect(summarise([roundOf(1, [4000, 200, 0.4], [3000, 300, 0.6])], [10]).sizes[0]).not.to.have.property('baseline');
  });

  it('has no figures when no round is valid', () => {
    const summary = summarise([roundOf(1, [4000, 200, 0.4], [3000, 280, 0.6], { errors: 3 })], [10]);
    expect(summary.valid).to.deep.equal([]);
    expect(summary.sizes).to.deep.equal([]);
    expect(summary.targets).to.deep.equal([]);
  });
});
