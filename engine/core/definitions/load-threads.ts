import os from 'node:os';

/**
 * How many threads a large load analyses on by default: one per CPU but the
 * loading thread's. Workers pay ~0.5 s each to start and copy every file's
 * value back; with the parsers at ~0.1 ms a file, one thread alone loaded
 * 33,000 files faster on 2 CPUs (4.6-5.6 s) than two workers (5.8-6.2 s,
 * and ~60 MB more at peak), so on 2 CPUs the default is this thread alone.
 */
export function defaultLoadThreads(): number {
  return Math.max(1, os.availableParallelism() - 1);
}
