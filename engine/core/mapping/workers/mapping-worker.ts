/**
 * A mapping worker's thread (workers/mapping-workers.ts starts it): decodes and parses a large response's JSON and
 * evaluates the action's response mapping on it under the same guardrails as the main thread (evaluateGuarded:
 * MAPPING_TIMEOUT_MS counted in this thread's CPU time, the depth, sequence and size limits), its jobs
 * one after another (mapInTurn). Only the result's JSON goes back: its `data` rows as bytes written apart (an envelope
 * splices them; the main thread never makes them objects), the rest as text.
 */
import { parentPort } from 'node:worker_threads';
import { compileExpression, type GuardedExpression } from '../compile.ts';
import { isEmptyRow } from '../empty-row.ts';
import { evaluateGuarded } from '../evaluate.ts';
import { MappingError } from '../mapping-error.ts';
import type { FromWorker, MapJob, ToWorker } from './messages.ts';
import { isJsonObject } from '../../../platform/json-object.ts';

/** Expressions compiled here, by their text, origin and limits; an app's few hundred fit, a reload's new ones replace them. */
const compiled = new Map<string, GuardedExpression>();
const REMEMBERED_EXPRESSIONS = 500;
const stops = new Map<number, { aborted: boolean }>();
/** As parseBody decodes UTF-8: a byte order mark dropped, an invalid sequence replaced. */
const UTF8 = new TextDecoder('utf-8');
const UTF8_OUT = new TextEncoder();

function expressionOf(job: MapJob): GuardedExpression {
  const key = JSON.stringify(job.expression);
  let expression = compiled.get(key);
  if (!expression) {
    expression = compileExpression(job.expression.source, job.expression.at, job.expression.limits);
    if (compiled.size >= REMEMBERED_EXPRESSIONS) compiled.clear();
    compiled.set(key, expression);
  }
  return expression;
}

async function run(job: MapJob, stop: { aborted: boolean }): Promise<FromWorker> {
  if (stop.aborted) return { id: job.id, stopped: true };
  let json = true;
  try {
    const text = UTF8.decode(job.bytes);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      [body, json] = [text, false];
    }
    const { status, headers, action, arguments: args } = job.input;
    // The result is only written out as JSON below: it need not be a copy of the body's rows (to-json.ts, sharedJson).
    const result = await evaluateGuarded(expressionOf(job), { status, headers, body, action, arguments: args }, {}, stop, { mayShareInput: true });
    if (isJsonObject(result) && Array.isArray(result.data)) {
      const rows = result.data;
      const data = { bytes: UTF8_OUT.encode(JSON.stringify(rows)), rows: rows.length, emptyRows: rows.some(isEmptyRow) };
      return { id: job.id, json, result: JSON.stringify({ ...result, data: undefined }), data };
    }
    return { id: job.id, json, result: result === undefined ? undefined : JSON.stringify(result) };
  } catch (error) {
    if (stop.aborted) return { id: job.id, stopped: true };
    if (error instanceof MappingError) return { id: job.id, json, error: { details: error.details, message: error.message } };
    return { id: job.id, failed: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The jobs in the order they came, mapped one at a time: each answers after its own time and the time of
 * those before it, where mapping them all at once, in turns, made every one wait for all the others (and
 * the jobs arriving meanwhile): p99 over 5 s against ~1 s for 10 runs of 10,000 records at once. A job
 * still yields between its slices, so that a stop (or a new job) is heard while it maps.
 */
const queue: MapJob[] = [];
let mapping = false;

async function mapInTurn(): Promise<void> {
  if (mapping) return;
  mapping = true;
  try {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const stop = stops.get(job.id) ?? { aborted: false };
      const answer = await run(job, stop);
      stops.delete(job.id);
      // The rows' bytes are handed over, not copied.
      parentPort!.postMessage(answer, 'data' in answer && answer.data ? [answer.data.bytes.buffer as ArrayBuffer] : []);
    }
  } finally {
    mapping = false;
  }
}

parentPort!.on('message', (message: ToWorker) => {
  if (message.type === 'stop') {
    const stop = stops.get(message.id);
    if (stop) stop.aborted = true;
    return;
  }
  stops.set(message.id, { aborted: false });
  queue.push(message);
  void mapInTurn();
});
