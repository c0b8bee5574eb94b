import { readdirSync, readFileSync } from 'node:fs';

/** User + system CPU a process has used, in µs (Linux /proc; NaN where there is none). */
export function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Context switches of all of a process's threads so far (voluntary and not; Linux /proc; NaN where there is
 * none): a write handed to libuv's thread pool wakes a thread and is woken back, which CPU time alone hides
 * among other costs.
 */
export function contextSwitches(pid: number): number {
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      let status: string;
      try {
        status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      } catch {
        continue; // the thread ended between the listing and the read
      }
      for (const match of status.matchAll(/^(?:voluntary|nonvoluntary)_ctxt_switches:\s+(\d+)$/gm)) total += Number(match[1]);
    }
    return total;
  } catch {
    return Number.NaN;
  }
}
