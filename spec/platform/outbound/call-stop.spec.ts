import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { CallStop, onAbort, stopReason } from '../../../engine/platform/outbound/call-stop.ts';
import { sleep } from '../../../engine/core/run/rate-limit.ts';

describe('CallStop and onAbort', () => {
  it('aborts once, keeping the first reason', () => {
    const stop = new CallStop();
    const heard: unknown[] = [];
    onAbort(stop, () => heard.push(stop.reason));
    expect(stop.aborted).to.equal(false);
    stop.abort('first');
    stop.abort('second');
    expect(stop.aborted).to.equal(true);
    expect(heard).to.deep.equal(['first']);
  });

  // Node's streams format the stack of the error a socket is destroyed with; with source maps on, each frame is looked up.
  it('makes the errors of a stop without stack frames (its reason, and undici’s made while it aborts), and leaves the limit as it was', () => {
    expect(stopReason('the caller went away').stack).to.equal('Error: the caller went away');
    const stop = new CallStop();
    let made: Error | undefined;
    stop.once('abort', () => {
      made = new Error('aborted');
    });
    stop.once('abort', () => {
      throw new Error('a listener that fails');
    });
    expect(() => stop.abort(stopReason('total timeout'))).to.throw('a listener that fails');
    expect(made!.stack).to.equal('Error: aborted');
    expect(new Error('later').stack).to.match(/^Error: later\n\s+at /);
  });

  for (const [kind, make] of [
    ['a CallStop', () => { const s = new CallStop(); return { signal: s, abort: (r: unknown) => s.abort(r), count: () => s.listenerCount('abort') }; }],
    ['an AbortSignal', () => { const c = new AbortController(); return { signal: c.signal, abort: (r: unknown) => c.abort(r), count: () => getEventListeners(c.signal, 'abort').length }; }],
  ] as const) {
    it(`listens to ${kind} until told to stop`, () => {
      const { signal, abort, count } = make();
      let heard = 0;
      const stopListening = onAbort(signal, () => heard++);
      expect(count()).to.equal(1);
      stopListening();
      expect(count()).to.equal(0);
      abort('gone');
      expect(heard).to.equal(0);
    });

    it(`lets ${kind} end a retry wait early with its reason, and leaves no listener behind a wait that ran out`, async () => {
      const waited = make();
      await sleep(1, waited.signal);
      expect(waited.count()).to.equal(0);
      const stopped = make();
      const pending = sleep(60_000, stopped.signal);
      stopped.abort(new Error('the caller went away'));
      expect(((await pending.catch((e: unknown) => e)) as Error).message).to.equal('the caller went away');
      expect(((await sleep(1, stopped.signal).catch((e: unknown) => e)) as Error).message).to.equal('the caller went away');
    });
  }
});
