import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The CPU time (user + system) of the thread that calls it, in ms: what a
 * mapping's slices are measured in (guard.ts, fast/index.ts). Within a slice
 * the thread runs the mapping alone, so the CPU it spends meanwhile is the
 * mapping's (with the garbage collection its allocations cause on that
 * thread), and a machine that takes the CPU away in the middle of a slice
 * does not make the mapping look longer, as a wall clock would. The thread's
 * own time, not the process's: a mapping worker (offload/) and the main
 * thread map at once, and neither's time may count against the other's
 * mapping. One reading per slice, not per step.
 *
 * Where it is read from: `process.threadCpuUsage()` (Node 23.9 and newer),
 * else Linux's /proc/thread-self/schedstat (the thread's time on a CPU, in
 * ns), else the process's time (`process.cpuUsage()`), all threads: there a
 * mapping may be stopped sooner than its own time says, never later.
 */
export const cpuNow: () => number = pickClock();

function pickClock(): () => number {
  const threadUsage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof threadUsage === 'function') {
    return () => {
      const { user, system } = threadUsage.call(process);
      return (user + system) / 1000;
    };
  }
  const schedstat = threadSchedstat();
  return schedstat ?? processCpuMs;
}

export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * A reader of the calling thread's time on a CPU in ms (the first field of /proc/thread-self/schedstat, in
 * ns), on a descriptor kept open (a pread: ~3 µs, as getrusage(2); opening the file each time costs ~37).
 * The kernel updates it at each scheduler tick (4 ms at HZ 250) and switch: a slice's reading is that
 * close, which a timeout of hundreds of ms does not notice. The descriptor is this thread's (a worker
 * opens its own) and is closed when the thread exits. undefined where there is no such file.
 */
function threadSchedstat(): (() => number) | undefined {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(64);
  const read = (): number => {
    const field = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
    const space = field.indexOf(32);
    return Number(field.toString('latin1', 0, space === -1 ? field.length : space)) / 1e6;
  };
  if (!(read() > 0)) {
    closeSync(fd);
    return undefined;
  }
  process.once('exit', () => closeSync(fd));
  return read;
}
