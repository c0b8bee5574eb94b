/**
 * Locks by name within this process: `run(name, work)` starts `work` once every earlier work of that name has
 * ended. What a store without a lock of its own (MongoDB, port.ts `exclusive`) takes so that work one gateway
 * process runs at once under one name runs one after another there; another process does not see it.
 * Not re-entrant: a work that waits for its own name (nested) never starts.
 */
export class NamedLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<R>(name: string, work: () => Promise<R>): Promise<R> {
    const before = this.tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(name, tail);
    await before;
    try {
      return await work();
    } finally {
      release();
      // The last one out forgets the name: the map holds only names with work running or waiting.
      if (this.tails.get(name) === tail) this.tails.delete(name);
    }
  }
}
