/**
 * The load parts' rounds: the bare proxy and the gateway (at each log level,
 * and another checkout's gateway with `--baseline`) measured side by side in
 * one run, again and again, their order rotating round to round (so none
 * always runs first, on a machine whose speed drifts), and summarised by the
 * median. A pass in which any request failed (a non-2xx, a client error, a
 * timeout) or nothing was answered is left out of the medians of its side at
 * its size, with the proxy's of that round (an error answered fast must never
 * count as speed); its failures are counted and reported. What a side is held
 * to is the median of its per-round ratios to the proxy: the two ran seconds
 * apart, under the same load.
 *
 * A "size" is whatever a part varies: records per response (the load part),
 * client connections (the slow-upstream part).
 */
import type { LoadFigures } from './load.ts';
import { median, round } from './stats.ts';

/** `proxy`, or a gateway as `<which>@<log level>`: `gateway@info`, `gateway@silent`, `baseline@info`, ... */
export type Side = string;
export const PROXY: Side = 'proxy';

/** One target at one size in one round, at the load's connections. */
export interface LoadMeasure {
  figures: LoadFigures;
  /** User + system CPU of the target's process per answered request. */
  cpuUsPerRequest: number;
  /** The target's resident memory after the pass (MB). */
  rssMb?: number;
  /** GET /health at one connection while the pass ran (gateways, at the largest responses). */
  health?: LoadFigures;
}

/** One round: each size's loaded pass and (when measured) one-connection pass, for every side. */
export interface Round {
  index: number;
  order: Side[];
  loaded: Record<number, Record<Side, LoadMeasure>>;
  oneConnection: Record<number, Record<Side, LoadFigures>>;
}

/** The issue's targets (issue 31), each against the proxy of the same round, for the gateway at the default log level. */
export const TARGETS = {
  /** Gateway CPU per request at most this many times the proxy's, by records per response. */
  cpuRatio: { 10: 2.0, 100: 2.5 } as Record<number, number>,
  /** Gateway req/s at least this share of the proxy's, at 10 records. */
  requestsShare: 0.5,
  /** With a 100 ms upstream, gateway req/s at least this share of the proxy's, at these client connections. */
  slowShare: 0.9,
  slowConnections: [512, 2048],
  /** /health p99 at most this while 10,000-record runs go on. */
  healthP99Ms: 50,
} as const;
export const TARGET_RECORDS = 10;

export interface SideSummary {
  /** Rounds whose pass of this side (and the proxy's) at this size had no failure: the medians are theirs. */
  validRounds: number[];
  /** Requests that failed over all rounds (non-2xx, errors, timeouts), and why each failing pass failed. */
  failedRequests: number;
  failures: string[];
  requestsPerSecond: number;
  cpuUsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  rssMb?: number;
  oneConnectionP50Ms?: number;
  oneConnectionP99Ms?: number;
  /** GET /health p99 while the pass ran, the median of the rounds (all rounds: it is measured while the others fail too). */
  healthP99Ms?: number;
  /** Against the proxy (not on the proxy's own): medians of the per-round ratios and differences. */
  cpuRatio?: number;
  requestsShare?: number;
  addedP50Ms?: number;
}

export interface SizeSummary {
  size: number;
  sides: Record<Side, SideSummary>;
}

export interface RoundsSummary {
  rounds: number;
  sizes: SizeSummary[];
}

/** Why a pass failed, or null when every request of it was answered 2xx. */
export function failureOf(figures: LoadFigures): string | null {
  if (figures.requests === 0) return 'no request answered';
  const failed = [
    figures.non2xx ? `${figures.non2xx} non-2xx${figures.otherStatuses ? ` (${Object.entries(figures.otherStatuses).map(([status, n]) => `${n} x ${status}`).join(', ')})` : ''}` : '',
    figures.errors ? `${figures.errors} errors` : '',
    figures.timeouts ? `${figures.timeouts} timeouts` : '',
  ].filter(Boolean);
  return failed.length ? failed.join(', ') : null;
}

function passFailure(round: Round, size: number, side: Side): string | null {
  const loaded = round.loaded[size]?.[side];
  if (!loaded) return 'not measured';
  const failure = failureOf(loaded.figures) ?? (Number.isFinite(loaded.cpuUsPerRequest) ? null : 'CPU time unreadable');
  if (failure) return failure;
  const one = round.oneConnection[size]?.[side];
  const oneFailure = one ? failureOf(one) : null;
  return oneFailure ? `1 connection: ${oneFailure}` : null;
}

/** Medians per size and side over the rounds valid for it; a side with no valid round at a size has its failures only. */
export function summarise(rounds: Round[], sizes: readonly number[]): RoundsSummary {
  const summary: RoundsSummary = { rounds: rounds.length, sizes: [] };
  for (const size of sizes) {
    const sides = [...new Set(rounds.flatMap((r) => Object.keys(r.loaded[size] ?? {})))];
    const out: Record<Side, SideSummary> = {};
    for (const side of sides) {
      const failures: string[] = [];
      let failedRequests = 0;
      const good: Round[] = [];
      for (const r of rounds) {
        const figures = r.loaded[size]?.[side]?.figures;
        if (figures) failedRequests += figures.non2xx + figures.errors + figures.timeouts;
        const own = passFailure(r, size, side);
        if (own) failures.push(`round ${r.index}: ${own}`);
        const proxy = side === PROXY ? null : passFailure(r, size, PROXY);
        if (!own && !proxy) good.push(r);
      }
      const at = (r: Round, s: Side) => r.loaded[size]![s]!;
      const m = (of: (r: Round) => number | undefined, digits: number) => {
        const values = good.map(of).filter((v): v is number => v !== undefined && Number.isFinite(v));
        return values.length ? round(median(values), digits) : undefined;
      };
      const health = rounds.map((r) => r.loaded[size]?.[side]?.health?.p99Ms).filter((v): v is number => v !== undefined && Number.isFinite(v));
      const result: SideSummary = { validRounds: good.map((r) => r.index), failedRequests, failures, requestsPerSecond: NaN, cpuUsPerRequest: NaN, p50Ms: NaN, p99Ms: NaN };
      if (health.length) result.healthP99Ms = round(median(health), 1);
      if (good.length) {
        Object.assign(result, {
          requestsPerSecond: m((r) => at(r, side).figures.requestsPerSecond, 0),
          cpuUsPerRequest: m((r) => at(r, side).cpuUsPerRequest, 0),
          p50Ms: m((r) => at(r, side).figures.p50Ms, 3),
          p99Ms: m((r) => at(r, side).figures.p99Ms, 3),
        });
        const optional = {
          rssMb: m((r) => at(r, side).rssMb, 0),
          oneConnectionP50Ms: m((r) => r.oneConnection[size]?.[side]?.p50Ms, 3),
          oneConnectionP99Ms: m((r) => r.oneConnection[size]?.[side]?.p99Ms, 3),
          ...(side === PROXY
            ? {}
            : {
                cpuRatio: m((r) => at(r, side).cpuUsPerRequest / at(r, PROXY).cpuUsPerRequest, 3),
                requestsShare: m((r) => at(r, side).figures.requestsPerSecond / at(r, PROXY).figures.requestsPerSecond, 3),
                addedP50Ms: m((r) => {
                  const [mine, proxy] = [r.oneConnection[size]?.[side], r.oneConnection[size]?.[PROXY]];
                  return mine && proxy ? mine.p50Ms - proxy.p50Ms : undefined;
                }, 3),
              }),
        };
        for (const [key, value] of Object.entries(optional)) if (value !== undefined) (result as unknown as Record<string, number>)[key] = value;
      }
      out[side] = result;
    }
    summary.sizes.push({ size, sides: out });
  }
  return summary;
}

export interface Target {
  target: string;
  goal: string;
  measured: string;
  met: boolean;
}

/** The gateway side the targets are read on: the default log level (info) when it was measured. */
export function targetSide(sides: readonly Side[]): Side | undefined {
  return sides.find((s) => s === 'gateway@info') ?? sides.find((s) => s.startsWith('gateway@'));
}

/** The cost targets at 10 and 100 records (the load part); a side without valid rounds there misses them. */
export function costTargets(load: RoundsSummary): Target[] {
  const targets: Target[] = [];
  for (const size of load.sizes) {
    const side = targetSide(Object.keys(size.sides));
    const limit = TARGETS.cpuRatio[size.size];
    if (!side) continue;
    const s = size.sides[side]!;
    const proxy = size.sides[PROXY];
    if (limit !== undefined) {
      targets.push({
        target: `${side} CPU per request against the proxy's, ${size.size} records`,
        goal: `<= ${limit}x`,
        measured: s.cpuRatio === undefined ? `no valid round (${s.failures[0] ?? 'no figures'})` : `${s.cpuRatio}x (${s.cpuUsPerRequest} against ${proxy?.cpuUsPerRequest} µs)`,
        met: s.cpuRatio !== undefined && s.cpuRatio <= limit,
      });
    }
    if (size.size === TARGET_RECORDS) {
      targets.push({
        target: `${side} req/s against the proxy's, ${size.size} records`,
        goal: `>= ${TARGETS.requestsShare * 100}%`,
        measured: s.requestsShare === undefined ? 'no valid round' : `${round(s.requestsShare * 100, 1)}% (${s.requestsPerSecond} against ${proxy?.requestsPerSecond})`,
        met: s.requestsShare !== undefined && s.requestsShare >= TARGETS.requestsShare,
      });
    }
    if (size.size === 10_000) {
      targets.push({
        target: `${side}: runs of 10,000 records answered 200`,
        goal: 'no failed request',
        measured: s.failures.length === 0 ? 'none failed' : `${s.failedRequests} failed (${s.failures[0]})`,
        met: s.failedRequests === 0 && s.validRounds.length > 0,
      });
      if (s.healthP99Ms !== undefined) {
        targets.push({ target: `${side}: /health p99 while runs of 10,000 records go on`, goal: `< ${TARGETS.healthP99Ms} ms`, measured: `${s.healthP99Ms} ms`, met: s.healthP99Ms < TARGETS.healthP99Ms });
      }
    }
  }
  return targets;
}

/** The slow-upstream targets: req/s against the proxy's at the target connections. */
export function slowTargets(slow: RoundsSummary): Target[] {
  const targets: Target[] = [];
  for (const size of slow.sizes) {
    if (!(TARGETS.slowConnections as readonly number[]).includes(size.size)) continue;
    const side = targetSide(Object.keys(size.sides));
    if (!side) continue;
    const s = size.sides[side]!;
    targets.push({
      target: `${side} req/s against the proxy's, 100 ms upstream, ${size.size} connections`,
      goal: `>= ${TARGETS.slowShare * 100}%`,
      measured: s.requestsShare === undefined ? `no valid round (${s.failures[0] ?? 'no figures'})` : `${round(s.requestsShare * 100, 1)}% (${s.requestsPerSecond} against ${size.sides[PROXY]?.requestsPerSecond})`,
      met: s.requestsShare !== undefined && s.requestsShare >= TARGETS.slowShare,
    });
  }
  return targets;
}

/** The order of round `index` (1-based): the sides rotate, so each runs first, second, ... in turn. */
export function orderIn(index: number, sides: readonly Side[]): Side[] {
  const shift = (index - 1) % sides.length;
  return [...sides.slice(shift), ...sides.slice(0, shift)];
}
