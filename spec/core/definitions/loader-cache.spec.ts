import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

describe('the loader cache (content hash per file)', () => {
  it('re-parses and re-compiles only the files that changed, re-checks only the apps they are in, and forgets deleted ones', async () => {
    const tmp = await tempDir('defs-cache-');
    try {
      await copyValid(tmp.dir);
      const loader = new DefinitionsLoader();
      const first = await loader.loadDirectory(tmp.dir);
      expect(first.stats).to.deep.equal({ files: 6, incremental: false, read: 6, analysed: 6, reused: 0, cached: 0, appsChecked: 1 });

      const unchanged = await loader.loadDirectory(tmp.dir);
      expect(unchanged.stats).to.deep.equal({ files: 6, incremental: false, read: 6, analysed: 0, reused: 6, cached: 0, appsChecked: 0 });
      expect(unchanged.hash).to.equal(first.hash);

      const file = path.join(tmp.dir, 'acme/versions/1/actions/list-lists.yaml');
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('List lists', 'All lists'));
      const edited = await loader.loadDirectory(tmp.dir);
      expect(edited.stats).to.deep.equal({ files: 6, incremental: false, read: 6, analysed: 1, reused: 5, cached: 0, appsChecked: 1 });
      expect(edited.hash).to.not.equal(first.hash);

      // A compiled expression of an unchanged file is the very same object: it was not compiled again.
      const contacts = (r: typeof first) => r.snapshot!.apps.get('acme')!.versions.get(1)!.actions.get('list-contacts')!.response;
      expect(contacts(edited)).to.equal(contacts(first));

      await fs.rm(path.join(tmp.dir, 'acme/versions/1/actions/create-contact.yaml'));
      const removed = await loader.loadDirectory(tmp.dir);
      expect(removed.stats).to.deep.equal({ files: 5, incremental: false, read: 5, analysed: 0, reused: 5, cached: 0, appsChecked: 1 });
      expect(removed.ok).to.equal(true);
    } finally {
      await tmp.remove();
    }
  });
});
