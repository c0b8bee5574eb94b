import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

/** Replaces `from` with `to` in one file (it must be there). */
async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await fs.writeFile(file, text.replace(from, to));
}

describe('npm run catalogue (docs/catalogue.md)', function () {
  this.timeout(180_000);

  it('docs/catalogue.md is current with definitions/ (after changing an app, run npm run catalogue)', async () => {
    const run = await runScript('catalogue.ts', ['--check']);
    expect(run.stdout, run.stderr).to.match(/^docs\/catalogue\.md is current \(\d+ apps?\)\n$/);
    expect(run.code).to.equal(0);
  });

  it('has one summary row and one section per app folder of definitions/', async () => {
    const page = await fs.readFile(path.join(ROOT, 'docs/catalogue.md'), 'utf8');
    const folders = (await fs.readdir(path.join(ROOT, 'definitions'), { withFileTypes: true })).filter((entry) => entry.isDirectory());
    expect(page.match(/^<a id="app-[^"]+"><\/a>$/gm)).to.have.length(folders.length);
    const rows = page.split('\n').filter((line) => /^\| (<img [^>]+>)? \| \[.+\]\(#app-/.test(line));
    expect(rows).to.have.length(folders.length);
  });

  it('--help prints the usage and exits 0', async () => {
    const run = await runScript('catalogue.ts', ['--help']);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.match(/^usage: npm run catalogue -- \[--check\] \[--dir <definitions folder>\] \[--out <page>\] \[--descriptions <folder>\]\n/);
    expect(run.stdout).to.match(/\n  --check +write nothing; exit 1 listing what of the page is stale/);
    expect(run.stderr).to.equal('');
  });

  it('exits 2 with the usage on an unknown option or argument', async () => {
    const unknown = await runScript('catalogue.ts', ['--chek']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/--chek[\s\S]*\nusage: npm run catalogue/);
    const extra = await runScript('catalogue.ts', ['definitions']);
    expect(extra.code).to.equal(2);
    expect(extra.stderr).to.match(/^unexpected argument definitions\nusage: npm run catalogue/);
  });

  describe('in a folder of its own', () => {
    let tmp: { dir: string; remove: () => Promise<void> };
    const page = () => fs.readFile(path.join(tmp.dir, 'docs/catalogue.md'), 'utf8');
    const ACTION = 'definitions/acme/versions/1/actions/list-lists.yaml';
    beforeEach(async () => {
      tmp = await tempDir('catalogue-');
      await copyValid(path.join(tmp.dir, 'definitions'));
    });
    afterEach(() => tmp.remove());

    it('writes the page from the definitions: summary, app, auths with their arguments, actions with method, path, pagination and arguments', async () => {
      const run = await runScript('catalogue.ts', [], { cwd: tmp.dir });
      expect(run).to.deep.equal({ code: 0, stdout: 'wrote docs/catalogue.md (1 app)\n', stderr: '' });
      const text = await page();
      expect(text).to.include(
        '1 app, 1 auth, 3 actions; 0 apps with 8 or more actions; 0 apps held to a provider description.\n\n## Other\n\n' +
          '| | App | Slug | Published | Auths | Actions | Description check |\n|---|---|---|---|---|---|---|\n|  | [Acme CRM](#app-acme-crm) | `acme-crm` | 1 | ApiKey | 3 |  |\n',
      );
      expect(text).to.include('<a id="app-acme-crm"></a>\n\n## Acme CRM\n');
      expect(text).to.include('- README: none\n');
      expect(text).to.include('| `api-key` (default) | ApiKey | API key |  | `apiKey`* String |\n');
      expect(text).to.include('Host variables (connection metadata): `region`* List (Fixed)\n');
      expect(text).to.include('| `list-contacts` | List contacts | list | `GET /lists/:listId/contacts` | Cursor |\n');
      expect(text).to.include('- `list-contacts`: `listId`* List (Lookup) Param · `pageSize` Number Query hidden · `tags` String Query\n');
      expect(text).to.include('- `create-contact`: `email`* String Body · `address` Object Body · `address.country` List (Country) · `birthday` Date Body\n');
      expect(text).not.to.match(/\d{4}-\d\d-\d\dT/);
      // Deterministic: a second run writes the same bytes.
      await runScript('catalogue.ts', [], { cwd: tmp.dir });
      expect(await page()).to.equal(text);
    });

    it('lists an app under its main category, with its icon, and says whether its description check holds', async () => {
      await edit(path.join(tmp.dir, 'definitions/acme/app.yaml'), 'name: Acme CRM', 'name: Acme CRM\ncategories: [crm, marketing]');
      await fs.writeFile(path.join(tmp.dir, 'definitions/acme/icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
      await runScript('catalogue.ts', [], { cwd: tmp.dir });
      const text = await page();
      expect(text).to.include('## CRM\n\n| | App |');
      expect(text).to.include('| <img src="../definitions/acme/icon.svg" alt="" width="20" height="20"> | [Acme CRM](#app-acme-crm) | `acme-crm` | 1 | ApiKey | 3 |  |\n');
      expect(text).to.include('- Categories: crm, marketing\n');
      expect(text).not.to.include('## Other');
    });

    it('links the app README when the app folder has one', async () => {
      await fs.writeFile(path.join(tmp.dir, 'definitions/acme/README.md'), '# Acme CRM\n');
      await runScript('catalogue.ts', [], { cwd: tmp.dir });
      expect(await page()).to.include('- README: [acme/README.md](../definitions/acme/README.md)\n');
    });

    it('--check exits 1 listing what is stale, without writing, and 0 once the page is written', async () => {
      const missing = await runScript('catalogue.ts', ['--check'], { cwd: tmp.dir });
      expect(missing).to.deep.equal({ code: 1, stdout: 'docs/catalogue.md is stale (run npm run catalogue):\n  the page does not exist\n', stderr: '' });
      expect(await fs.stat(path.join(tmp.dir, 'docs')).catch(() => null)).to.equal(null);

      await runScript('catalogue.ts', [], { cwd: tmp.dir });
      const current = await runScript('catalogue.ts', ['--check'], { cwd: tmp.dir });
      expect(current).to.deep.equal({ code: 0, stdout: 'docs/catalogue.md is current (1 app)\n', stderr: '' });

      const written = await page();
      await edit(path.join(tmp.dir, ACTION), 'name: List lists', 'name: List mailing lists');
      const changed = await runScript('catalogue.ts', ['--check'], { cwd: tmp.dir });
      expect(changed).to.deep.equal({ code: 1, stdout: 'docs/catalogue.md is stale (run npm run catalogue):\n  app acme-crm differs\n', stderr: '' });
      expect(await page()).to.equal(written);
    });

    it('--check names a new app as missing (and the summary), and an app that is gone', async () => {
      await runScript('catalogue.ts', [], { cwd: tmp.dir });
      await fs.cp(path.join(tmp.dir, 'definitions/acme'), path.join(tmp.dir, 'definitions/zeta'), { recursive: true });
      await edit(path.join(tmp.dir, 'definitions/zeta/app.yaml'), 'id: acme', 'id: zeta');
      await edit(path.join(tmp.dir, 'definitions/zeta/app.yaml'), 'slug: acme-crm', 'slug: zeta');
      const added = await runScript('catalogue.ts', ['--check'], { cwd: tmp.dir });
      expect(added.stdout).to.equal('docs/catalogue.md is stale (run npm run catalogue):\n  the summary differs\n  app zeta is missing\n');
      expect(added.code).to.equal(1);

      await runScript('catalogue.ts', [], { cwd: tmp.dir });
      await fs.rm(path.join(tmp.dir, 'definitions/zeta'), { recursive: true });
      const removed = await runScript('catalogue.ts', ['--check'], { cwd: tmp.dir });
      expect(removed.stdout).to.equal('docs/catalogue.md is stale (run npm run catalogue):\n  the summary differs\n  app zeta is not in the definitions any more\n');
      expect(removed.code).to.equal(1);
    });

    it('exits 2 with the located problems when the definitions do not load, writing nothing', async () => {
      await edit(path.join(tmp.dir, ACTION), 'operation: list', 'operation: lister');
      const run = await runScript('catalogue.ts', [], { cwd: tmp.dir });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.match(/^definitions\/acme\/versions\/1\/actions\/list-lists\.yaml:\d+:\d+ SCHEMA_ENUM /);
      expect(run.stderr).to.match(/\ndefinitions does not load: fix it \(npm run validate\) before writing the catalogue\n$/);
      expect(await fs.stat(path.join(tmp.dir, 'docs')).catch(() => null)).to.equal(null);
    });
  });
});
