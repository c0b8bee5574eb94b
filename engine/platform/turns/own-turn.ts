/**
 * One long step per turn of the event loop. The big runs' long synchronous
 * steps (a mapping's slice, parsing a large response, serialising a large
 * envelope) each wait here for a turn of their own; the turn after them is
 * the next one's, so every turn between two of them reads the sockets and
 * fires the timers: a request that arrives meanwhile (GET /health, a small
 * run) waits for one step at most, never for all the steps in flight.
 *
 * Without it, each step waiting with its own setImmediate ran in the same
 * turn as every other step waiting then: measured with 10 runs of 10,000
 * records at once, turns of 0.5 to 2 s (ten parses, ten slices, ten
 * serialisations back to back), /health p99 over a second. The steps are
 * served first come, first served, so none waits for ever; the work of a
 * run is the same, only when its steps run changes.
 *
 * How it works: one setImmediate at a time, which lets one waiter go; an
 * immediate scheduled in the check phase runs in the next turn of the loop
 * (after its timers and its poll for I/O), so the next waiter goes a turn later.
 */
/**
 * A step on this many bytes or more (parsing a response, writing an envelope) waits for a turn of its own:
 * JSON.parse and JSON.stringify take about a millisecond for 64 KiB, less than the cost of a turn is worth
 * below that.
 */
export const OWN_TURN_FROM_BYTES = 64 * 1024;

const waiting: (() => void)[] = [];
let head = 0;
let scheduled = false;

/** Resolves at a turn of the event loop that no other waiter here has: start the long step right after. */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(letOneGo);
    }
  });
}

function letOneGo(): void {
  const next = waiting[head++]!;
  if (head === waiting.length) {
    waiting.length = 0;
    head = 0;
    scheduled = false;
  } else {
    // Drop the served ones now and then (a queue as long as the steps in flight, never longer).
    if (head >= 1024) {
      waiting.splice(0, head);
      head = 0;
    }
    setImmediate(letOneGo);
  }
  next();
}

/** How many steps wait for their turn now (for tests and metrics). */
export function waitingForTurn(): number {
  return waiting.length - head;
}
