import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { ownTurn, waitingForTurn } from '../../../engine/platform/turns/index.ts';

/** Counts the event loop's turns: a timer due on every turn (each step below keeps the loop at least 2 ms). */
function turnCounter(): { now(): number; stop(): void } {
  let turns = 0;
  let timer = setTimeout(function tick() {
    turns++;
    timer = setTimeout(tick, 0);
  }, 0);
  return { now: () => turns, stop: () => clearTimeout(timer) };
}

function busy(ms: number): void {
  for (const end = performance.now() + ms; performance.now() < end; );
}

describe('ownTurn: one long step per turn of the event loop', () => {
  it('steps waiting at once each get a turn of their own, in the order they asked, the timers firing between them', async () => {
    const turns = turnCounter();
    try {
      const order: string[] = [];
      const at: number[] = [];
      const step = async (name: string) => {
        await ownTurn();
        order.push(name);
        at.push(turns.now());
        busy(2);
      };
      const steps = Promise.all(['a', 'b', 'c', 'd'].map(step));
      expect(waitingForTurn()).to.equal(4);
      await steps;
      expect(order).to.deep.equal(['a', 'b', 'c', 'd']);
      expect(new Set(at).size, `turns ${at.join(', ')}`).to.equal(4);
      expect(waitingForTurn()).to.equal(0);
    } finally {
      turns.stop();
    }
  });

  it('a step asking again waits behind the others already waiting', async () => {
    const order: string[] = [];
    const again = (async () => {
      await ownTurn();
      order.push('first');
      await ownTurn();
      order.push('first again');
    })();
    const other = (async () => {
      await ownTurn();
      order.push('other');
    })();
    await Promise.all([again, other]);
    expect(order).to.deep.equal(['first', 'other', 'first again']);
  });
});
