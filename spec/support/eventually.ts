/** How long a reload, a watcher or a folder swap may take to show, on a busy machine. */
export const WITHIN_MS = 15_000;

/**
 * Polls `probe` every 50 ms until `holds` says yes, and answers what it last
 * saw; past `withinMs` it fails naming `what` and the last value, so a slow
 * machine waits instead of flaking and a real failure says what it saw.
 */
export async function eventually<T>(probe: () => Promise<T>, holds: (value: T) => boolean, what: string, withinMs = WITHIN_MS): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: T = await probe();
  while (!holds(last)) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}; last seen ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await probe();
  }
  return last;
}
