import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy } from '../../../engine/platform/egress/policy.ts';
import { createHttpClient } from '../../../engine/platform/outbound/client.ts';
import { ownTurn } from '../../../engine/platform/turns/index.ts';
import { listing } from '../../../scripts/bench/records.ts';
import { startLocalServer } from './local-server.ts';

/**
 * A large response body is parsed at a turn of the event loop of its own
 * (platform/turns), not in the turn its last bytes arrived in beside other
 * long steps. Counted, not timed: a timer counts the turns, a neighbour
 * takes a long step on every turn it can get, and JSON.parse notes the
 * turn it parsed the big body in.
 */
describe('a large response body is parsed at a turn of its own', function () {
  this.timeout(60_000);

  it('never in a turn where another long step ran', async () => {
    const text = JSON.stringify(listing(10_000));
    const upstream = await startLocalServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(text));
    let turns = 0;
    let timer = setTimeout(function tick() {
      turns++;
      timer = setTimeout(tick, 0);
    }, 0);
    const neighbourTurns = new Set<number>();
    let running = true;
    const neighbour = (async () => {
      while (running) {
        await ownTurn();
        neighbourTurns.add(turns);
        for (const end = performance.now() + 2; performance.now() < end; );
      }
    })();
    const parsedIn: number[] = [];
    const parse = JSON.parse;
    JSON.parse = function (source: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
      if (typeof source === 'string' && source.length === text.length) parsedIn.push(turns);
      return parse.call(JSON, source, reviver);
    } as typeof JSON.parse;
    try {
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32')) });
      const response = await client.send({ method: 'GET', url: `${upstream.url}/records` });
      // The rest of the turn it was parsed in (the neighbour's step, had it one there), and the next.
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((response.body as { data: { records: unknown[] } }).data.records).to.have.length(10_000);
      expect(parsedIn).to.have.length(1);
      expect(neighbourTurns.size, 'the neighbour took turns meanwhile').to.be.greaterThan(1);
      expect(neighbourTurns.has(parsedIn[0]!), `parsed in turn ${parsedIn[0]}, which the neighbour's step also ran in`).to.equal(false);
      await client.close();
    } finally {
      JSON.parse = parse;
      running = false;
      clearTimeout(timer);
      await neighbour;
      await upstream.close();
    }
  });
});
