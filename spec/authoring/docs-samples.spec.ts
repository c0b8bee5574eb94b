import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { diffAppVersions, diffDefinitions } from '../../engine/authoring/definition-diff.ts';
import { diffMarkdown } from '../../engine/authoring/diff-report.ts';
import { DefinitionsLoader } from '../../engine/core/definitions/loader.ts';
import { readSourceFiles, sourceFile } from '../../engine/core/definitions/source-files.ts';
import { createApp } from '../../engine/authoring/create-app.ts';
import { tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

/** The bundled definitions in memory, loaded after `edit` changes their values. */
async function bundled(edit: (folder: Map<string, any>) => void = () => {}) {
  const { files } = await readSourceFiles(path.join(ROOT, 'definitions'));
  const folder = new Map(files.map((f) => [f.file, parse(f.text)]));
  edit(folder);
  const result = new DefinitionsLoader().load([...folder].map(([file, value]) => sourceFile(file, stringify(value))));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.snapshot;
}

describe('docs/definitions.md samples', () => {
  it('shows the Markdown npm run diff prints for the changes it describes', async () => {
    const guide = await fs.readFile(path.join(ROOT, 'docs/definitions.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Reviewing a change: npm run diff'));
    const sample = /```markdown\n([\s\S]*?)```/.exec(section)![1];

    const head = await bundled((folder) => {
      const issues = folder.get('github/versions/1/actions/list-issues.yaml');
      const arg = (key: string) => issues.arguments.find((a: { key: string }) => a.key === key);
      arg('state').list.options = arg('state').list.options.filter((o: { value: string }) => o.value !== 'all');
      arg('perPage').default = 50;
      const since = issues.arguments.indexOf(arg('since'));
      issues.arguments.splice(since + 1, 0, { key: 'assignee', description: 'Only issues assigned to this login.', dataType: 'String', location: 'Query' });
      folder.get('github/versions/1/actions/list-labels.yaml').name = 'List repository labels';
      for (const [file, value] of [...folder]) if (file.startsWith('stripe/versions/1/')) folder.set(file.replace('/versions/1/', '/versions/draft/'), structuredClone(value));
    });
    expect(diffMarkdown('main', 'HEAD', diffDefinitions(await bundled(), head))).to.equal(sample);
  });
});

describe('docs/definitions.md two-versions sample', () => {
  it('shows the Markdown npm run diff prints for two versions of one app', async () => {
    const guide = await fs.readFile(path.join(ROOT, 'docs/definitions.md'), 'utf8');
    const section = guide.slice(guide.indexOf('### Two versions of one app'));
    const sample = /```markdown\n([\s\S]*?)```/.exec(section)![1];

    const snapshot = await bundled((folder) => {
      // The sample's version 2 is version 1 with two changes, not the bundled version 2.
      for (const file of [...folder.keys()]) if (file.startsWith('github/versions/2/')) folder.delete(file);
      for (const [file, value] of [...folder]) if (file.startsWith('github/versions/1/')) folder.set(file.replace('/versions/1/', '/versions/2/'), structuredClone(value));
      folder.delete('github/versions/2/actions/delete-label.yaml');
      folder.get('github/versions/2/actions/list-issues.yaml').arguments.find((a: { key: string }) => a.key === 'since').required = true;
    });
    const github = snapshot.apps.get('github')!;
    const changes = diffAppVersions({ app: github, version: github.versions.get(1)! }, { app: github, version: github.versions.get(2)! });
    expect(diffMarkdown('definitions/github@1', 'definitions/github@2', changes)).to.equal(sample);
  });
});

describe('docs/definitions.md offline tests sample', function () {
  this.timeout(30_000);
  it('shows what npm run test:definitions prints for the documented case and a failing one', async () => {
    const guide = await fs.readFile(path.join(ROOT, 'docs/definitions.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Offline tests'), guide.indexOf('## Canonical form'));
    const cases = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const output = /```\n(✔[\s\S]*?)```/.exec(section)![1]!;
    const failing = `  - name: ends on the last page without a cursor
    connection:
      credentials: { apiKey: test-key }
    arguments: { cursor: abc }
    request:
      query: { limit: "20", cursor: abc }
    response:
      status: 200
      body: { items: [{ id: 2, name: Second }] }
    expect:
      data: [{ id: 2, name: First }]
      meta: {}
`;
    const tmp = await tempDir('docs-offline-');
    try {
      expect(await createApp(path.join(tmp.dir, 'definitions'), 'acme-crm')).to.deep.include({ ok: true });
      await fs.writeFile(path.join(tmp.dir, 'definitions/acme-crm/versions/draft/actions/list-items.test.yaml'), cases + failing);
      const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
      expect(run.stdout).to.equal(output);
      expect(run.code).to.equal(1);
    } finally {
      await tmp.remove();
    }
  });
});
