import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { integer, type Env } from '../../../platform/settings/env.ts';
import { workerScript } from '../../../platform/worker-script.ts';
import type { JsonValue } from '../../../platform/outbound/types.ts';
import { limitsOf, type GuardedExpression } from '../compile.ts';
import { MappingError } from '../mapping-error.ts';
import { stoppedBy } from '../slice.ts';
import { onAbort, type Abortable } from '../../../platform/outbound/index.ts';
import type { FromWorker, MapJob } from './messages.ts';

/** MAPPING_WORKERS and MAPPING_WORKER_FROM_BYTES (see mappingWorkersFromEnv). */
export interface MappingWorkerSettings {
  /** Threads that map large responses; 0: every mapping runs on the main thread. */
  workers: number;
  /** The smallest body, in bytes, mapped in a worker. */
  fromBytes: number;
}

/**
 * Bytes of JSON one worker maps at once at most (with one job, any size): beyond, the main thread maps.
 * What bounds a worker's heap: 64 MiB of the bench's records parse to ~400 MB. Not V8's
 * `resourceLimits`: a worker that reaches them inside one JSON.parse (no interrupt until it returns) takes
 * the whole process down with it ("Reached heap limit"), measured with a 32 MB heap and 80 MB of JSON.
 */
export const WORKER_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/** A job's answer: whether the body was JSON, and the result (without its `data` when `data` is given apart: see SplitData). */
export interface Mapped {
  json: boolean;
  result: JsonValue | undefined;
  data?: { bytes: Buffer; rows: number; emptyRows: boolean };
}

interface Pending {
  resolve: (answer: Mapped) => void;
  reject: (error: Error) => void;
  bytes: number;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  bytes: number;
}

/**
 * The threads that parse and map large responses (MAPPING_WORKER_FROM_BYTES
 * and more), so that the main thread never holds a 10,000-record object graph:
 * parsing 1.9 MB on it took 25-45 ms in one step, and its young-generation GCs
 * copied every large body still being mapped, both of which every other
 * request (/health too) waited for. A job goes to the worker with the fewest
 * bytes in flight; each worker maps its jobs one after another, in the order
 * they came (mapping-worker.ts). A worker is started at its first job and
 * does not keep the process alive.
 * When every worker has WORKER_IN_FLIGHT_BYTES in flight, `map` answers
 * undefined and the caller maps on its own thread, as without workers (the
 * memory the workers hold is bounded; no queue grows). A worker that stops
 * (a defect) fails its jobs with a plain error (a 500 INTERNAL) and is
 * replaced at the next job.
 */
export class MappingWorkers {
  private readonly slots: (Slot | undefined)[];
  private nextId = 1;
  private closed = false;

  private readonly inFlightBytes: number;

  /** `bounds.inFlightBytes`: a worker's bytes in flight (WORKER_IN_FLIGHT_BYTES by default; smaller in tests). */
  constructor(
    readonly settings: MappingWorkerSettings,
    bounds: { inFlightBytes?: number } = {},
  ) {
    this.slots = new Array(Math.max(0, settings.workers)).fill(undefined);
    this.inFlightBytes = bounds.inFlightBytes ?? WORKER_IN_FLIGHT_BYTES;
  }

  /** Whether there are workers to map in (MAPPING_WORKERS is not 0, and they are not closed). */
  get active(): boolean {
    return this.slots.length > 0 && !this.closed;
  }

  /** Whether a body of this many bytes is mapped in a worker. */
  takes(bytes: number): boolean {
    return this.active && bytes >= this.settings.fromBytes;
  }

  /**
   * Maps the body `bytes` (UTF-8, decoded and parsed in the worker; a text that is not JSON is the body
   * itself) with `input`'s other members. Resolves with whether the text was JSON and the mapping's result
   * (plain JSON, as evaluateGuarded's; an object's `data` array apart, as the bytes of its JSON: see
   * Mapped), or answers undefined when the workers are full (the caller maps it itself). Rejects with the
   * MappingError the mapping failed with, or with the stop's reason once `stop` has fired.
   */
  map(expression: GuardedExpression, input: Record<string, unknown>, bytes: Uint8Array, stop?: Abortable): Promise<Mapped> | undefined {
    const limits = limitsOf(expression.expression);
    if (!limits) throw new Error(`the expression of ${expression.at.file}:${expression.at.line} was compiled without guardrails; compile it with guardedJsonata()`);
    if (stop?.aborted) return Promise.reject(stoppedBy(stop));
    const slot = this.slotFor(bytes.length);
    if (!slot) return undefined;
    const id = this.nextId++;
    const job: MapJob = { type: 'map', id, expression: { source: expression.source, at: expression.at, limits }, input, bytes };
    return new Promise((resolve, reject) => {
      const onStop = () => {
        slot.worker.postMessage({ type: 'stop', id });
        settle(slot, id);
        reject(stoppedBy(stop!));
      };
      const stopListening = stop ? onAbort(stop, onStop) : undefined;
      const done = () => stopListening?.();
      slot.pending.set(id, {
        resolve: (answer) => (done(), resolve(answer)),
        reject: (error) => (done(), reject(error)),
        bytes: bytes.length,
      });
      slot.bytes += bytes.length;
      slot.worker.postMessage(job);
    });
  }

  /** Stops the workers; jobs still in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot?.worker.terminate()));
  }

  private slotFor(bytes: number): Slot | undefined {
    let best: number | undefined;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (!slot) {
        best ??= i;
        continue;
      }
      if (slot.pending.size > 0 && slot.bytes + bytes > this.inFlightBytes) continue;
      if (best === undefined || (this.slots[best] && this.slots[best]!.bytes > slot.bytes)) best = i;
    }
    if (best === undefined) return undefined;
    return (this.slots[best] ??= this.start(best));
  }

  private start(index: number): Slot {
    const worker = new Worker(WORKER_SCRIPT, { eval: true });
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), bytes: 0 };
    worker.on('message', (answer: FromWorker) => {
      const pending = settle(slot, answer.id);
      if (!pending) return;
      if ('stopped' in answer) return;
      if ('failed' in answer) return pending.reject(new Error(`the mapping worker failed: ${answer.failed}`));
      if ('error' in answer) return pending.reject(rebuilt(answer.error));
      const result = answer.result === undefined ? undefined : (JSON.parse(answer.result) as JsonValue);
      const data = answer.data && { ...answer.data, bytes: Buffer.from(answer.data.bytes.buffer, answer.data.bytes.byteOffset, answer.data.bytes.length) };
      pending.resolve(data ? { json: answer.json, result, data } : { json: answer.json, result });
    });
    let failure: Error | undefined;
    worker.on('error', (error) => (failure = error));
    worker.once('exit', () => {
      if (this.slots[index] === slot) this.slots[index] = undefined;
      for (const [id, pending] of slot.pending) {
        settle(slot, id);
        pending.reject(new Error(this.closed ? 'the mapping workers were closed' : `the mapping worker stopped${failure ? `: ${failure.message}` : ''}`));
      }
    });
    return slot;
  }
}

/** The worker's entry (mapping-worker.ts, or .js compiled). */
const WORKER_SCRIPT = workerScript(import.meta.url, 'mapping-worker');

function settle(slot: Slot, id: number): Pending | undefined {
  const pending = slot.pending.get(id);
  if (!pending) return undefined;
  slot.pending.delete(id);
  slot.bytes -= pending.bytes;
  return pending;
}

/** The worker's MappingError as the main thread's (the same message, details and status). */
function rebuilt(error: { details: MappingError['details']; message: string }): MappingError {
  const { file, line, column } = error.details;
  const prefix = `${file}:${line}:${column}: `;
  return new MappingError(error.details, error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message);
}

/**
 * MAPPING_WORKERS (threads mapping large responses; default: the CPUs less one, 1 to 4; 0 maps every
 * response on the main thread) and MAPPING_WORKER_FROM_BYTES (the smallest JSON body so mapped; default
 * 256 KiB, about 1,300 records of the bench's listing: below, the hand-off costs more than the parse it saves).
 */
export function mappingWorkersFromEnv(env: Env): MappingWorkerSettings {
  const cpus = availableParallelism();
  return {
    workers: integer(env, 'MAPPING_WORKERS', Math.min(4, Math.max(1, cpus - 1)), 0, 64),
    fromBytes: integer(env, 'MAPPING_WORKER_FROM_BYTES', 256 * 1024, 1, 1_073_741_824),
  };
}
