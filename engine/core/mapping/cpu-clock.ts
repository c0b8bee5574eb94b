/**
 * The process's CPU time (user + system, all threads) in ms: what a
 * mapping's slices are measured in (guard.ts, fast/index.ts). Within a slice
 * the event loop runs the mapping alone, so the CPU the process spends meanwhile
 * is the mapping's (with the garbage collection its allocations cause), and a
 * machine that takes the CPU away from the gateway in the middle of a slice
 * does not make the mapping look longer, as a wall clock would. One
 * getrusage(2) per slice, not per step.
 */
export function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
