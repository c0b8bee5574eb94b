import { expect } from 'chai';
import { NamedLocks } from '../../../engine/platform/store/named-locks.ts';

/** What MongoDB's store.transaction `exclusive` takes (port.ts): works of one name in one process, one after another. */
describe('NamedLocks', () => {
  it('runs works of one name one after another, in the order they came, and works of other names alongside', async () => {
    const locks = new NamedLocks();
    const events: string[] = [];
    const work = (name: string, label: string, ms: number) =>
      locks.run(name, async () => {
        events.push(`start ${label}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`end ${label}`);
        return label;
      });
    const results = await Promise.all([work('a', 'a1', 20), work('a', 'a2', 1), work('b', 'b1', 5), work('a', 'a3', 1)]);
    expect(results).to.deep.equal(['a1', 'a2', 'b1', 'a3']);
    const ofA = events.filter((e) => e.endsWith('a1') || e.endsWith('a2') || e.endsWith('a3'));
    expect(ofA).to.deep.equal(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    // b did not wait for a.
    expect(events.indexOf('end b1')).to.be.lessThan(events.indexOf('end a1'));
  });

  it('goes on after a work that throws, and forgets a name nothing waits for', async () => {
    const locks = new NamedLocks();
    const failed = locks.run('a', async () => {
      throw new Error('boom');
    });
    const next = locks.run('a', async () => 'next');
    expect(await failed.then(() => 'resolved', (error: Error) => error.message)).to.equal('boom');
    expect(await next).to.equal('next');
    expect((locks as unknown as { tails: Map<string, unknown> }).tails.size).to.equal(0);
  });
});
