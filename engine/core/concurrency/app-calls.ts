import { GatewayError } from '../../platform/errors/index.ts';
import { onAbort, type Abortable } from '../../platform/outbound/index.ts';
import type { AppCallSettings } from './settings.ts';

/**
 * How many calls at once one connection of an app may have in flight: an
 * app's api.yaml says how many its provider tolerates (`concurrency: 10`;
 * providers count them per account, so per connection), and calls beyond it
 * wait here, in order, in a queue of at most OUTBOUND_QUEUE_LENGTH each.
 * A waiting call gives up at its run's deadline, or when its caller goes
 * away; a call that finds the queue full is refused at once. Both answer 503
 * UPSTREAM_BUSY with a Retry-After estimated from how long the app's calls
 * take. An app that sets no concurrency is not bounded here (the process's
 * bound is the memory its responses take: OUTBOUND_MAX_BUFFERED_BYTES).
 *
 * Every call to an app goes through acquire() and gives its slot back with
 * the release it got: the runs (core/run/run-action.ts), and anything else
 * that calls an app on a connection's behalf (the proxy).
 *
 *   const release = await calls.acquire(appCallKey(version, connection.id), deadline, signal);
 *   try { ... send ... } finally { release(); }
 */
export interface AppCallLimiter {
  /** Waits for a slot of `key` until `deadline` (ms since the epoch); resolves with the function that gives it back (once; later calls do nothing). Rejects with UPSTREAM_BUSY, or with the signal's reason when it aborts. */
  acquire(key: AppCallKey, deadline: number, signal?: Abortable): Promise<Release>;
}

export type Release = () => void;

/** Whose slots a call takes: one connection of one app, and how many calls at once it may have (undefined: unbounded). */
export interface AppCallKey {
  readonly app: string;
  readonly connection: string;
  readonly limit: number | undefined;
}

/** The key of a call of `version`'s app through connection `connectionId`. */
export function appCallKey(version: { app: { slug: string }; api: { concurrency: number | undefined } }, connectionId: string): AppCallKey {
  return { app: version.app.slug, connection: connectionId, limit: version.api.concurrency };
}

interface Waiter {
  grant(): void;
  refuse(error: unknown): void;
}

/** One connection's calls: those in flight, those waiting (first in, first served), and how long its calls take. */
interface Lane {
  active: number;
  limit: number;
  readonly waiting: Waiter[];
  /** A moving average of the time a slot is held (ms), for Retry-After; 0 until a call has ended. */
  averageMs: number;
}

const NOTHING: Release = () => {};
const GRANTED = Promise.resolve(NOTHING);

export function createAppCallLimiter(settings: AppCallSettings): AppCallLimiter {
  /** Lanes with a call in flight or waiting; an idle lane is dropped, so this holds no more than the calls under way. */
  const lanes = new Map<string, Lane>();

  function releaseOf(id: string, lane: Lane): Release {
    const started = Date.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const heldMs = Date.now() - started;
      lane.averageMs = lane.averageMs === 0 ? heldMs : lane.averageMs * 0.8 + heldMs * 0.2;
      lane.active--;
      while (lane.active < lane.limit && lane.waiting.length > 0) {
        lane.active++;
        lane.waiting.shift()!.grant();
      }
      if (lane.active === 0 && lane.waiting.length === 0) lanes.delete(id);
    };
  }

  /** `ahead`: the calls waiting before this one (all of them for a call not queued; its own place for a queued one, which is itself in lane.waiting). */
  function busy(key: AppCallKey, lane: Lane, why: string, ahead = lane.waiting.length): GatewayError {
    // The time until the calls ahead of it, and one in flight, would have gone through at the pace the app has kept (at least a second).
    const seconds = Math.max(1, Math.ceil(((ahead + 1) * (lane.averageMs || 1000)) / lane.limit / 1000));
    return GatewayError.of(
      'UPSTREAM_BUSY',
      `${key.app} takes ${lane.limit} call${lane.limit === 1 ? '' : 's'} at once per connection (api.yaml concurrency) and connection ${key.connection} ${why}; try again in ${seconds} s`,
      { app: key.app, limit: lane.limit, queued: lane.waiting.length, retryAfterSeconds: seconds },
    );
  }

  return {
    acquire(key, deadline, signal) {
      const limit = key.limit;
      if (limit === undefined) return GRANTED;
      const id = `${key.app}\u0000${key.connection}`;
      let lane = lanes.get(id);
      if (!lane) lanes.set(id, (lane = { active: 0, limit, waiting: [], averageMs: 0 }));
      lane.limit = limit; // the version being run says; versions of one app may differ
      if (lane.active < limit) {
        lane.active++;
        return Promise.resolve(releaseOf(id, lane));
      }
      if (lane.waiting.length >= settings.queueLength) {
        return Promise.reject(busy(key, lane, `has ${lane.waiting.length} more waiting (OUTBOUND_QUEUE_LENGTH)`));
      }
      const waitMs = deadline - Date.now();
      if (waitMs <= 0) return Promise.reject(busy(key, lane, 'has every one in use, and the run has no time left to wait'));
      const queue = lane;
      return new Promise<Release>((resolve, reject) => {
        let stopListening: (() => void) | undefined;
        const leave = () => {
          clearTimeout(timer);
          stopListening?.();
          const at = queue.waiting.indexOf(waiter);
          if (at !== -1) queue.waiting.splice(at, 1);
          if (queue.active === 0 && queue.waiting.length === 0) lanes.delete(id);
        };
        const waiter: Waiter = {
          grant: () => {
            clearTimeout(timer);
            stopListening?.();
            resolve(releaseOf(id, queue));
          },
          refuse: (error) => {
            leave();
            reject(error);
          },
        };
        const timer = setTimeout(
          () => waiter.refuse(busy(key, queue, `had every one in use until the run's deadline (${Math.round(waitMs)} ms)`, Math.max(0, queue.waiting.indexOf(waiter)))),
          waitMs,
        );
        if (signal?.aborted) return waiter.refuse(signal.reason);
        if (signal) stopListening = onAbort(signal, () => waiter.refuse(signal.reason));
        queue.waiting.push(waiter);
      });
    },
  };
}
