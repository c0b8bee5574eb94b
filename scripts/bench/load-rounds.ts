/**
 * The load part's rounds: the bare proxy and the gateway measured side by
 * side in one run, again and again, their order alternating round to round
 * (so neither always runs first, on a machine whose speed drifts), and
 * summarised by the median. A round in which any request failed (a non-2xx,
 * a client error, a timeout) or nothing was answered is invalid: it is
 * reported, and left out of the medians. What each target is held to is the
 * median of the per-round ratios: the proxy and the gateway of one round ran
 * a few seconds apart, under the same load.
 */
import type { LoadFigures } from './load.ts';
import { median, round } from './stats.ts';

export type Side = 'proxy' | 'gateway' | 'baseline';

/** The proxy and the gateway, and the baseline gateway (another checkout's, `--baseline`) when one is measured. */
export interface Sides<T> {
  proxy: T;
  gateway: T;
  baseline?: T;
}

/** One target at one size in one round: at the load's connections, with its CPU per answered request. */
export interface LoadMeasure {
  figures: LoadFigures;
  cpuUsPerRequest: number;
}

/** One round: each size's load pass and one-connection pass, for both targets. */
export interface Round {
  index: number;
  /** Which ran first in this round. */
  first: Side;
  loaded: Record<number, Sides<LoadMeasure>>;
  oneConnection: Record<number, Sides<LoadFigures>>;
}

/** The issue's targets (issue 21), each against the proxy of the same round. */
export const TARGETS = {
  /** Gateway CPU per request at most this many times the proxy's, at 10 records. */
  cpuRatio: 1.5,
  /** Gateway req/s at least this share of the proxy's, at 10 records. */
  requestsShare: 0.7,
  /** p50 added over the proxy at one connection, 10 records, at most this many ms. */
  addedP50Ms: 0.3,
} as const;
export const TARGET_RECORDS = 10;

export interface SideSummary {
  requestsPerSecond: number;
  cpuUsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  oneConnectionP50Ms: number;
  oneConnectionP99Ms: number;
}

export interface SizeSummary {
  records: number;
  proxy: SideSummary;
  gateway: SideSummary;
  /** When every valid round measured a baseline: its figures, and the gateway's against it (medians of per-round ratios). */
  baseline?: SideSummary;
  vsBaseline?: { cpuRatio: number; requestsShare: number; p50DifferenceMs: number };
  /** Medians of the per-round ratios and differences. */
  cpuRatio: number;
  requestsShare: number;
  addedP50Ms: number;
  addedP50MsLoaded: number;
}

export interface RoundsSummary {
  rounds: number;
  valid: number[];
  invalid: { round: number; reason: string }[];
  sizes: SizeSummary[];
  targets: { target: string; goal: string; measured: string; met: boolean }[];
}

/** Why a pass makes its round invalid, or null when every request of it was answered 2xx. */
export function failureOf(figures: LoadFigures): string | null {
  if (figures.requests === 0) return 'no request answered';
  const failed = [
    figures.non2xx ? `${figures.non2xx} non-2xx${figures.otherStatuses ? ` (${Object.entries(figures.otherStatuses).map(([status, n]) => `${n} x ${status}`).join(', ')})` : ''}` : '',
    figures.errors ? `${figures.errors} errors` : '',
    figures.timeouts ? `${figures.timeouts} timeouts` : '',
  ].filter(Boolean);
  return failed.length ? failed.join(', ') : null;
}

/** The first failure of a round (which pass, what failed), or null for a valid round. */
export function roundFailure(r: Round): string | null {
  for (const [records, sides] of Object.entries(r.loaded)) {
    for (const [side, measured] of Object.entries(sides) as [Side, LoadMeasure][]) {
      const failure = failureOf(measured.figures) ?? (Number.isFinite(measured.cpuUsPerRequest) ? null : 'CPU time unreadable');
      if (failure) return `${side} at ${records} records: ${failure}`;
    }
  }
  for (const [records, sides] of Object.entries(r.oneConnection)) {
    for (const [side, figures] of Object.entries(sides) as [Side, LoadFigures][]) {
      const failure = failureOf(figures);
      if (failure) return `${side} at ${records} records, 1 connection: ${failure}`;
    }
  }
  return null;
}

/** Medians over the valid rounds, and each target met or missed; a run with no valid round has no figures (sizes and targets empty). */
export function summarise(rounds: Round[], recordCounts: readonly number[]): RoundsSummary {
  const invalid: { round: number; reason: string }[] = [];
  const good: Round[] = [];
  for (const r of rounds) {
    const reason = roundFailure(r);
    if (reason) invalid.push({ round: r.index, reason });
    else good.push(r);
  }
  const summary: RoundsSummary = { rounds: rounds.length, valid: good.map((r) => r.index), invalid, sizes: [], targets: [] };
  if (good.length === 0) return summary;
  for (const records of recordCounts) {
    const side = (name: Side): SideSummary => ({
      requestsPerSecond: round(median(good.map((r) => r.loaded[records]![name]!.figures.requestsPerSecond)), 0),
      cpuUsPerRequest: round(median(good.map((r) => r.loaded[records]![name]!.cpuUsPerRequest)), 0),
      p50Ms: round(median(good.map((r) => r.loaded[records]![name]!.figures.p50Ms)), 3),
      p99Ms: round(median(good.map((r) => r.loaded[records]![name]!.figures.p99Ms)), 3),
      oneConnectionP50Ms: round(median(good.map((r) => r.oneConnection[records]![name]!.p50Ms)), 3),
      oneConnectionP99Ms: round(median(good.map((r) => r.oneConnection[records]![name]!.p99Ms)), 3),
    });
    const paired = (of: (r: Round) => number) => median(good.map(of));
    const withBaseline = good.every((r) => r.loaded[records]!.baseline !== undefined && r.oneConnection[records]!.baseline !== undefined);
    summary.sizes.push({
      records,
      proxy: side('proxy'),
      gateway: side('gateway'),
      cpuRatio: round(paired((r) => r.loaded[records]!.gateway.cpuUsPerRequest / r.loaded[records]!.proxy.cpuUsPerRequest), 3),
      requestsShare: round(paired((r) => r.loaded[records]!.gateway.figures.requestsPerSecond / r.loaded[records]!.proxy.figures.requestsPerSecond), 3),
      addedP50Ms: round(paired((r) => r.oneConnection[records]!.gateway.p50Ms - r.oneConnection[records]!.proxy.p50Ms), 3),
      addedP50MsLoaded: round(paired((r) => r.loaded[records]!.gateway.figures.p50Ms - r.loaded[records]!.proxy.figures.p50Ms), 3),
      ...(withBaseline
        ? {
            baseline: side('baseline'),
            vsBaseline: {
              cpuRatio: round(paired((r) => r.loaded[records]!.gateway.cpuUsPerRequest / r.loaded[records]!.baseline!.cpuUsPerRequest), 3),
              requestsShare: round(paired((r) => r.loaded[records]!.gateway.figures.requestsPerSecond / r.loaded[records]!.baseline!.figures.requestsPerSecond), 3),
              p50DifferenceMs: round(paired((r) => r.oneConnection[records]!.gateway.p50Ms - r.oneConnection[records]!.baseline!.p50Ms), 3),
            },
          }
        : {}),
    });
  }
  const at = summary.sizes.find((s) => s.records === TARGET_RECORDS);
  if (at) {
    summary.targets = [
      { target: `gateway CPU per request against the proxy's, ${TARGET_RECORDS} records`, goal: `<= ${TARGETS.cpuRatio}x`, measured: `${at.cpuRatio}x (${at.gateway.cpuUsPerRequest} against ${at.proxy.cpuUsPerRequest} µs)`, met: at.cpuRatio <= TARGETS.cpuRatio },
      { target: `gateway req/s against the proxy's, ${TARGET_RECORDS} records`, goal: `>= ${TARGETS.requestsShare * 100}%`, measured: `${round(at.requestsShare * 100, 1)}% (${at.gateway.requestsPerSecond} against ${at.proxy.requestsPerSecond})`, met: at.requestsShare >= TARGETS.requestsShare },
      { target: `p50 added over the proxy, ${TARGET_RECORDS} records, 1 connection`, goal: `<= ${TARGETS.addedP50Ms} ms`, measured: `${at.addedP50Ms} ms`, met: at.addedP50Ms <= TARGETS.addedP50Ms },
    ];
  }
  return summary;
}

/** Which target runs first in round `index` (1-based): the proxy in odd rounds, the gateway in even ones. */
export function firstIn(index: number): Side {
  return index % 2 === 1 ? 'proxy' : 'gateway';
}

/** The order of round `index` (1-based): two targets alternate; three (with a baseline) rotate, so each runs first, second and third in turn. */
export function orderIn(index: number, sides: readonly Side[]): Side[] {
  if (sides.length === 2) return firstIn(index) === sides[0] ? [...sides] : [sides[1]!, sides[0]!];
  const shift = (index - 1) % sides.length;
  return [...sides.slice(shift), ...sides.slice(0, shift)];
}
