import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { cpuNow, processCpuMs } from '../../../engine/core/mapping/cpu-clock.ts';

describe('the mapping clock (cpu-clock.ts): the calling thread’s CPU time', function () {
  this.timeout(30_000);

  it('does not count another thread’s time (a mapping worker’s and the main thread’s slices are each their own)', async function () {
    if (process.platform !== 'linux' && typeof (process as { threadCpuUsage?: unknown }).threadCpuUsage !== 'function') this.skip();
    // Another thread computes for 400 ms while this one waits (measured from when it has started: starting it costs this thread).
    const worker = new Worker('const { parentPort } = require("node:worker_threads"); parentPort.postMessage("start"); const end = Date.now() + 400; while (Date.now() < end); parentPort.postMessage("done");', { eval: true });
    const next = () => new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await next();
    const [threadStart, processStart] = [cpuNow(), processCpuMs()];
    await next();
    await worker.terminate();
    const spent = { thread: cpuNow() - threadStart, process: processCpuMs() - processStart };
    // The other thread's time (up to 400 ms, less on a busy machine) is the process's, not this thread's, which may
    // have done some work of its own meanwhile (the process's clock, the old one, counts both alike).
    expect(spent.process - spent.thread, 'time of the process not counted for this thread').to.be.greaterThan(150);
  });

  it('counts this thread’s own time, never more than the time that passed', () => {
    const [threadStart, wallStart] = [cpuNow(), performance.now()];
    // Computes until the clock has counted 200 ms (5 s at most, however busy the machine).
    while (cpuNow() - threadStart < 200 && performance.now() - wallStart < 5_000);
    const spent = { thread: cpuNow() - threadStart, wall: performance.now() - wallStart };
    expect(spent.thread, 'it counted the computing').to.be.at.least(200);
    // The kernel's count moves at each scheduler tick (a few ms).
    expect(spent.thread).to.be.at.most(spent.wall + 10);
  });
});
