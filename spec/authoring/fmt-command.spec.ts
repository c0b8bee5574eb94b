import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { formatFolder } from '../../engine/authoring/format-folder.ts';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

describe('npm run fmt (command)', function () {
  this.timeout(30_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('fmt-cli-');
    await copyValid(path.join(tmp.dir, 'definitions'));
    // The shared fixture is written freely (other tests pin its line numbers); start from its canonical form.
    await formatFolder(path.join(tmp.dir, 'definitions'), { write: true });
  });
  afterEach(() => tmp.remove());

  const app = () => path.join(tmp.dir, 'definitions/acme/app.yaml');

  it('passes --check on the bundled apps (CI runs it)', async () => {
    const run = await runScript('fmt.ts', ['--check'], { cwd: ROOT });
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^ok: \d+ files canonical\n$/);
    expect(run.code).to.equal(0);
  });

  it('--check lists every non-canonical file and exits 1 without writing; fmt then rewrites them and --check passes', async () => {
    const written = 'name: Acme CRM\nslug: acme-crm\nid: acme\npublished: 1\n';
    await fs.writeFile(app(), written);
    const api = path.join(tmp.dir, 'definitions/acme/versions/1/api.yaml');
    await fs.writeFile(api, (await fs.readFile(api, 'utf8')).replace('auths:\n  - api-key', 'auths: [api-key]'));

    const check = await runScript('fmt.ts', ['--check', 'definitions'], { cwd: tmp.dir });
    expect(check.stdout).to.equal('definitions/acme/app.yaml is not canonical\ndefinitions/acme/versions/1/api.yaml is not canonical\n');
    expect(check.stderr).to.equal('2 of 6 files not canonical: run npm run fmt\n');
    expect(check.code).to.equal(1);
    expect(await fs.readFile(app(), 'utf8')).to.equal(written);

    const fmt = await runScript('fmt.ts', ['definitions'], { cwd: tmp.dir });
    expect(fmt.stdout).to.equal('definitions/acme/app.yaml\ndefinitions/acme/versions/1/api.yaml\n');
    expect(fmt.stderr).to.equal('2 of 6 files rewritten\n');
    expect(fmt.code).to.equal(0);
    expect(await fs.readFile(app(), 'utf8')).to.equal('id: acme\nslug: acme-crm\nname: Acme CRM\npublished: 1\n');

    const again = await runScript('fmt.ts', ['--check'], { cwd: tmp.dir, env: { DEFINITIONS_DIR: 'definitions' } });
    expect(again.code).to.equal(0);
  });

  it('--check with a file it cannot format says not "ok" and does not count that file canonical', async () => {
    await fs.writeFile(app(), 'id: acme\nname: [oops\n');
    const run = await runScript('fmt.ts', ['--check', 'definitions'], { cwd: tmp.dir });
    expect(run.stdout).to.match(/^definitions\/acme\/app\.yaml:3:1 not valid YAML: /);
    expect(run.stderr).to.equal('5 of 6 files canonical, 1 could not be formatted\n');
    expect(run.code).to.equal(1);
  });

  it('reports a file that is not YAML with its position and exits 1, leaving it as is', async () => {
    await fs.writeFile(app(), 'id: acme\nname: [oops\n');
    const run = await runScript('fmt.ts', ['definitions'], { cwd: tmp.dir });
    expect(run.stdout).to.match(/^definitions\/acme\/app\.yaml:3:1 not valid YAML: /);
    // One line, its position said once, before it: no "at line 3, column 1:" left over from the yaml package's code frame.
    expect(run.stdout.split('\n')[0]).not.to.match(/(at line \d+, column \d+|:)$/);
    expect(run.stderr).to.equal('0 of 6 files rewritten, 1 could not be formatted\n');
    expect(run.code).to.equal(1);
    expect(await fs.readFile(app(), 'utf8')).to.equal('id: acme\nname: [oops\n');
  });

  it('exits 2 on an unknown option or a missing folder', async () => {
    const option = await runScript('fmt.ts', ['--fix'], { cwd: tmp.dir });
    expect(option).to.deep.equal({ code: 2, stdout: '', stderr: 'unknown option --fix\nusage: npm run fmt -- [--check] [<dir>]\n' });
    const missing = await runScript('fmt.ts', ['nowhere'], { cwd: tmp.dir });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/nowhere is not a folder\n$/);
  });
});
