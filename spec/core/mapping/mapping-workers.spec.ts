import { expect } from 'chai';
import { compileExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { DEFAULT_MAPPING_LIMITS } from '../../../engine/core/mapping/limits.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';
import { MappingWorkers } from '../../../engine/core/mapping/workers/mapping-workers.ts';
import { CallStop, stopReason } from '../../../engine/platform/outbound/index.ts';
import { RESPONSE_MAPPING } from '../../../scripts/bench/bench-app.ts';
import { listing } from '../../../scripts/bench/records.ts';

const ORIGIN = { file: 'definitions/acme/versions/1/actions/list-items.yaml', line: 20, column: 3 };
const INPUT = { status: 200, headers: { 'content-type': 'application/json' }, action: { id: 'list-items', slug: 'list-items', operation: 'list', query: {}, body: null }, arguments: {} };

async function rejection(promise: Promise<unknown> | undefined): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('it resolved');
}

describe('mapping workers: large responses parsed and mapped off the main thread', function () {
  this.timeout(120_000);
  let workers: MappingWorkers;
  beforeEach(() => (workers = new MappingWorkers({ workers: 2, fromBytes: 1 })));
  afterEach(() => workers.close());

  it('maps as the main thread does: the same rows from the same text', async () => {
    const text = JSON.stringify(listing(3000));
    const expression = compileExpression(RESPONSE_MAPPING, ORIGIN);
    const answer = (await workers.map(expression, INPUT, Buffer.from(text)))!;
    const here = (await evaluateGuarded(expression, { ...INPUT, body: JSON.parse(text) })) as { data: unknown[] };
    expect(here.data).to.have.length(3000);
    // The rows come apart, as the bytes of their JSON: the rest is the result without them.
    expect(answer.json).to.equal(true);
    expect(answer.data!.bytes.toString('utf8')).to.equal(JSON.stringify(here.data));
    expect(answer.data).to.include({ rows: 3000, emptyRows: false });
    const { data: _rows, ...rest } = here;
    expect(answer.result).to.deep.equal(rest);
  });

  it('says whether any row is an empty object (a failure drops those), and leaves a result without a data array whole', async () => {
    const rows = await workers.map(compileExpression('{ "data": body.items, "meta": { "n": $count(body.items) } }', ORIGIN), INPUT, Buffer.from('{"items":[{"a":1},{},[]]}'));
    expect(rows!.data).to.deep.include({ rows: 3, emptyRows: true });
    expect(rows!.result).to.deep.equal({ meta: { n: 3 } });
    const whole = await workers.map(compileExpression('{ "data": body.one }', ORIGIN), INPUT, Buffer.from('{"one":{"a":1}}'));
    expect(whole).to.deep.equal({ json: true, result: { data: { a: 1 } } });
  });

  it('a text that is not JSON is the body as it is, and says so', async () => {
    const answer = await workers.map(compileExpression('{ "kind": $type(body), "start": $substring(body, 0, 5) }', ORIGIN), INPUT, Buffer.from('<html>not json'));
    expect(answer).to.deep.equal({ json: false, result: { kind: 'string', start: '<html' } });
  });

  it('a failing mapping rejects with the MappingError the main thread would: its file:line:column, reason and code', async () => {
    const source = '{\n  "data": $error("the app said no")\n}';
    const expression = compileExpression(source, ORIGIN);
    const there = await rejection(workers.map(expression, INPUT, Buffer.from('{}')));
    const here = await rejection(evaluateGuarded(expression, { ...INPUT, body: {} }));
    expect(there).to.be.instanceOf(MappingError);
    expect((there as MappingError).message).to.equal((here as MappingError).message);
    expect((there as MappingError).details).to.deep.equal((here as MappingError).details);
    expect((there as MappingError).details).to.include({ reason: 'error', line: 21 });
  });

  it('a runaway mapping is stopped at MAPPING_TIMEOUT_MS of the worker’s own time (reason timeout)', async () => {
    const expression = compileExpression('$count($$.body.a.($count($$.body.a.($count($$.body.a)))))', ORIGIN, { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 200 });
    const text = JSON.stringify({ a: Array.from({ length: 1000 }, () => ({ x: 1 })) });
    const error = await rejection(workers.map(expression, INPUT, Buffer.from(text)));
    expect(error).to.be.instanceOf(MappingError);
    expect((error as MappingError).details).to.include({ reason: 'timeout', limit: 200, setting: 'MAPPING_TIMEOUT_MS' });
  });

  it('a caller who goes away stops its job with the stop’s reason; the worker goes on with the others', async () => {
    const runaway = compileExpression('$count($$.body.a.($count($$.body.a.($count($$.body.a)))))', ORIGIN, { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 60_000 });
    const text = JSON.stringify({ a: Array.from({ length: 1000 }, () => ({ x: 1 })) });
    const stop = new CallStop();
    const started = performance.now();
    const stopped = rejection(workers.map(runaway, INPUT, Buffer.from(text), stop));
    setTimeout(() => stop.abort(stopReason('the caller went away')), 100);
    const error = (await stopped) as Error;
    expect(error.message).to.equal('the caller went away');
    expect(performance.now() - started).to.be.lessThan(10_000);
    const next = await workers.map(compileExpression(RESPONSE_MAPPING, ORIGIN), INPUT, Buffer.from(JSON.stringify(listing(10))));
    expect(next!.data!.rows).to.equal(10);
  });

  it('with every worker full (bytes in flight), map answers undefined: the caller maps on its own thread', async () => {
    const full = new MappingWorkers({ workers: 1, fromBytes: 1 }, { inFlightBytes: 1000 });
    try {
      const slow = compileExpression('$count($$.body.a.($count($$.body.a)))', ORIGIN);
      const text = JSON.stringify({ a: Array.from({ length: 2000 }, () => ({ x: 1 })) });
      const first = full.map(slow, INPUT, Buffer.from(text));
      expect(first, 'one job of any size is taken').to.not.equal(undefined);
      expect(full.map(slow, INPUT, Buffer.from('[1]')), 'a second one beyond the bound is not').to.equal(undefined);
      expect(await first).to.deep.equal({ json: true, result: 2000 });
      expect(await full.map(slow, INPUT, Buffer.from('{"a":[1]}'))).to.deep.equal({ json: true, result: 1 });
    } finally {
      await full.close();
    }
  });

  it('a worker that stops (a defect) fails its jobs with a plain error and is replaced at the next job; close fails those in flight', async () => {
    const one = new MappingWorkers({ workers: 1, fromBytes: 1 });
    const runaway = compileExpression('$count($$.body.a.($count($$.body.a.($count($$.body.a)))))', ORIGIN, { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 60_000 });
    const text = JSON.stringify({ a: Array.from({ length: 1000 }, () => ({ x: 1 })) });
    try {
      const lost = rejection(one.map(runaway, INPUT, Buffer.from(text)));
      // What a crash of the thread looks like from here: the worker exits with a job in flight.
      const slot = (one as unknown as { slots: ({ worker: { terminate(): Promise<number> } } | undefined)[] }).slots[0]!;
      await slot.worker.terminate();
      const error = (await lost) as Error;
      expect(error).to.not.be.instanceOf(MappingError);
      expect(error.message).to.equal('the mapping worker stopped');
      const next = await one.map(compileExpression(RESPONSE_MAPPING, ORIGIN), INPUT, Buffer.from(JSON.stringify(listing(10))));
      expect(next!.data!.rows, 'a new worker took the next job').to.equal(10);
      const inFlight = rejection(one.map(runaway, INPUT, Buffer.from(text)));
      await one.close();
      expect(((await inFlight) as Error).message).to.equal('the mapping workers were closed');
      expect(one.takes(1_000_000), 'closed: nothing more is taken').to.equal(false);
    } finally {
      await one.close();
    }
  });

  it('takes bodies from MAPPING_WORKER_FROM_BYTES characters, and none with MAPPING_WORKERS=0', () => {
    const some = new MappingWorkers({ workers: 1, fromBytes: 1000 });
    expect([some.takes(999), some.takes(1000)]).to.deep.equal([false, true]);
    expect(new MappingWorkers({ workers: 0, fromBytes: 1 }).takes(1_000_000)).to.equal(false);
  });
});
