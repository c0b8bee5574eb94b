import { expect } from 'chai';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../engine/platform/package-root.ts';
import { startChild, type Child } from '../../../scripts/bench/child.ts';

/**
 * The bench's targets run as users run the gateway (`npm start`: plain node on dist/), not through tsx,
 * whichever way the bench itself runs (these specs run under tsx, as `npm run bench` does).
 */
describe('bench children', function () {
  this.timeout(120_000);
  let child: Child<{ url: string; sizes: Record<string, number> }> | null = null;
  afterEach(async () => {
    await child?.stop();
    child = null;
  });

  it('a compiled child runs its dist/ file with npm start’s flags, no tsx, and answers', async () => {
    child = await startChild('upstream.ts', { compiled: true });
    const [, ...args] = child.process.spawnargs;
    expect(args).to.deep.equal(['--enable-source-maps', path.join(PACKAGE_ROOT, 'dist/scripts/bench/upstream.js')]);
    const response = await fetch(`${child.info.url}/api/records?limit=1`);
    expect(response.status).to.equal(200);
    expect(((await response.json()) as { data: { records: unknown[] } }).data.records).to.have.length(1);
  });

  it('any other child runs the way the bench runs: its source through tsx here', async () => {
    child = await startChild('upstream.ts');
    const [, ...args] = child.process.spawnargs;
    expect(args).to.deep.equal(['--import', 'tsx', path.join(PACKAGE_ROOT, 'scripts/bench/upstream.ts')]);
  });
});
