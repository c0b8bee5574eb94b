import { expect } from 'chai';
import { storeLogging } from '../../../engine/platform/store/store-log.ts';
import { captureLogs } from '../../helpers/log-capture.ts';

/**
 * What the gateway logs of how its embedded database came to be on a first start (spec/platform/store/
 * pglite-first-start.spec.ts shows which way each case takes): a platform team reads from it why a first start
 * needed ~1 GB, and what to run so that the next one does not.
 */
describe('the log line of a first start\'s embedded database', () => {
  it('warns when initdb made it, naming the cost and the command that avoids it', () => {
    const { logger, lines } = captureLogs();
    storeLogging(logger).onEmbeddedCreated!('initdb', '/srv/data');
    const line = JSON.parse(lines()[0]!);
    expect(line).to.include({ level: 40, how: 'initdb', dataDir: '/srv/data' });
    expect(line.msg).to.equal(
      "store: created the embedded database in /srv/data/pglite with initdb, which needs about 1 GB of memory for about 10 s: the build's empty database (dist/pglite-cluster, made by `npm run build` for this PGlite) was not there, or could not be copied",
    );
  });

  it('says where a copied one came from, at info', () => {
    const { logger, lines } = captureLogs();
    const events = storeLogging(logger);
    events.onEmbeddedCreated!('cluster', '/srv/data');
    events.onEmbeddedCreated!('template', '/srv/data');
    const logged = lines().map((l) => {
      const { time: _time, ...rest } = JSON.parse(l);
      return rest;
    });
    expect(logged).to.deep.equal([
      { level: 30, how: 'cluster', dataDir: '/srv/data', msg: "store: created the embedded database in /srv/data/pglite, copied from the build's empty database (dist/pglite-cluster)" },
      { level: 30, how: 'template', dataDir: '/srv/data', msg: 'store: created the embedded database in /srv/data/pglite, copied from PGLITE_TEMPLATE_DIR' },
    ]);
  });
});
