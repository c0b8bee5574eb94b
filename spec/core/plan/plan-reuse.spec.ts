import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { evaluateMapperPlainly, type ArgumentDependencies } from '../../../engine/core/arguments/index.ts';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import type { DefinitionsSnapshot } from '../../../engine/core/definitions/snapshot.ts';
import { planOf } from '../../../engine/core/plan/index.ts';
import { actionFile, appFiles } from '../../../scripts/bench/scale-tree.ts';
import { tempDir } from '../../support/definition-fixtures.ts';

const deps: ArgumentDependencies = { evaluateMapper: evaluateMapperPlainly, lookupOptions: async () => [] };

/**
 * Plans are made once per action and kept while the snapshot's entries live:
 * a reload that changes one app makes new plans for that app only; every
 * other app's actions keep the plans they had (the same objects).
 */
describe('run plan: made once, and again only for the apps a reload changes', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('plan-reuse-');
    for (const i of [1, 2]) {
      for (const [file, text] of appFiles(i, 3)) {
        await fs.mkdir(path.dirname(path.join(tmp.dir, file)), { recursive: true });
        await fs.writeFile(path.join(tmp.dir, file), text);
      }
    }
  });
  afterEach(() => tmp.remove());

  const plansOf = (snapshot: DefinitionsSnapshot, app: string) => {
    const version = snapshot.apps.get(app)!.versions.get(1)!;
    return [...version.actions.values()].map((action) => planOf(version, action));
  };

  it('keeps the unchanged app’s plans and makes the changed app’s anew, which build the new definition', async () => {
    const loader = new DefinitionsLoader();
    const first = await loader.loadDirectory(tmp.dir);
    expect(first.ok).to.equal(true);
    const before1 = plansOf(first.snapshot!, 'app-0001');
    const before2 = plansOf(first.snapshot!, 'app-0002');
    // Asked again within one snapshot: the same plans.
    expect(plansOf(first.snapshot!, 'app-0001')).to.deep.equal(before1);
    plansOf(first.snapshot!, 'app-0001').forEach((plan, i) => expect(plan).to.equal(before1[i]));

    // app-0002's get-thing-3 now takes its thing under /items-3/:thingId.
    const [file, text] = actionFile('app-0002', 3, 1);
    await fs.writeFile(path.join(tmp.dir, file), text.replace('path: /things-3/:thingId', 'path: /items-3/:thingId'));
    const second = await loader.loadDirectory(tmp.dir, [path.join(tmp.dir, file)]);
    expect(second.ok).to.equal(true);
    expect(second.stats.incremental).to.equal(true);

    const after1 = plansOf(second.snapshot!, 'app-0001');
    const after2 = plansOf(second.snapshot!, 'app-0002');
    after1.forEach((plan, i) => expect(plan, `app-0001 action ${i}`).to.equal(before1[i]));
    after2.forEach((plan, i) => expect(plan, `app-0002 action ${i}`).to.not.equal(before2[i]));

    const version = second.snapshot!.apps.get('app-0002')!.versions.get(1)!;
    const built = await planOf(version, version.actions.get('get-thing-3')!).build({ auth: version.api.auths[0], host: { connection: { apiKey: 'k-1' } }, arguments: { thingId: 't 1' } }, deps);
    expect(built.request.url).to.equal('https://api.app-0002.example.com/v1/items-3/t%201');
    expect(built.request.query).to.deep.equal({ expand: 'details' });
  });
});
