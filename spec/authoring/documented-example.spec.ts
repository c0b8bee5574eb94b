import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { createApp } from '../../engine/authoring/create-app.ts';
import { exampleGaps, valueAt, promisedRowFields } from '../../engine/authoring/documented-example.ts';
import { loadDefinitions } from '../../engine/core/definitions/loader.ts';
import { tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

const ACTION = 'definitions/acme-crm/versions/draft/actions/list-items.yaml';
const CASES = 'definitions/acme-crm/versions/draft/actions/list-items.test.yaml';

/** The provider's documented example: a contact with a nested address, answered to the first request. */
const EXAMPLE_CASE = `cases:
  - name: maps the documented example
    example: https://docs.acme.example/api/items#list
    connection:
      credentials: { apiKey: test-key }
    request:
      url: https://api.example.com/items
    response:
      status: 200
      body: { items: [{ id: 1, name: First, address: { country: FR } }], next: abc }
    expect:
      success: true
      data: [{ id: 1, name: First, country: FR }]
      meta: { cursor: abc }
`;

describe("an action's documented example (a case with `example:`) fills every promised row field", function () {
  this.timeout(90_000);

  it('reads the row fields a mapping promises and the paths each reads', () => {
    expect(promisedRowFields('{ "data": [body.data.{ "id": id, "country": address.country, "at": $fromMillis(created * 1000), "fixed": "x" }] }')).to.deep.equal([
      { name: 'id', sources: [['id']] },
      { name: 'country', sources: [['address', 'country']] },
      { name: 'at', sources: [['created']] },
      { name: 'fixed', sources: [] },
    ]);
    // One object for a get; both branches of a condition; a variable's path is not read from the answer.
    expect(promisedRowFields('{ "data": status = 200 ? { "id": body.id, "q": $$.arguments.q } : [] }').map((f) => [f.name, f.sources])).to.deep.equal([
      ['id', [['body', 'id']]],
      ['q', []],
    ]);
    expect(promisedRowFields('{ "data": body.items }')).to.deep.equal([]);
    expect(promisedRowFields('not jsonata {')).to.deep.equal([]);
  });

  it('finds a value at a path anywhere in the answer, looking into arrays, but not a null or an empty array', () => {
    const body = { data: [{ address: { country: 'US' } }, { tags: [] }, { labels: [{ name: 'bug' }] }] };
    expect(valueAt(body, ['address', 'country'])).to.equal('data[0].address.country');
    expect(valueAt(body, ['country'])).to.equal('data[0].address.country');
    expect(valueAt(body, ['labels', 'name'])).to.equal('data[2].labels.name');
    expect(valueAt(body, ['tags'])).to.equal(undefined);
    expect(valueAt({ email: null }, ['email'])).to.equal(undefined);
  });

  it('names a promised field that no row fills though the example has its value, and an example with no rows', () => {
    const mapping = '{ "data": [body.data.{ "id": id, "email": customer.email, "phone": phone }] }';
    const input = { status: 200, headers: {}, body: { data: [{ id: 'cus_1', email: 'jenny@example.com', phone: null }] } };
    const rows = [{ id: 'cus_1' }];
    // email is read from customer.email, which the example does not have; phone is null in the example too.
    expect(exampleGaps(mapping, input, rows).map((d) => d.path)).to.deep.equal([]);
    expect(exampleGaps(mapping, { ...input, body: { data: [{ id: 'cus_1', customer: { email: 'jenny@example.com' } }] } }, rows).map((d) => d.path)).to.deep.equal(['example: row field "email"']);
    expect(exampleGaps(mapping, input, []).map((d) => d.path)).to.deep.equal(['example']);
  });

  it('fails a case whose mapping reads the wrong path for the documented example, and passes it once the path is right', async () => {
    const tmp = await tempDir('documented-example-');
    try {
      expect(await createApp(path.join(tmp.dir, 'definitions'), 'acme-crm')).to.deep.include({ ok: true });
      const action = path.join(tmp.dir, ACTION);
      const source = await fs.readFile(action, 'utf8');
      // The country read from a path the answer does not have: the case's own expect agrees with the mapping.
      await fs.writeFile(action, source.replace('"name": name }', '"name": name, "country": country }'));
      await fs.writeFile(path.join(tmp.dir, CASES), EXAMPLE_CASE.replace('data: [{ id: 1, name: First, country: FR }]', 'data: [{ id: 1, name: First }]'));
      const wrong = await runScript('test-definitions.ts', ['acme-crm'], { cwd: tmp.dir });
      expect(wrong.stdout.split('\n')).to.deep.equal([
        '✘ acme-crm draft list-items: maps the documented example',
        `    at ${CASES}:2`,
        '    example: row field "country": expected a value (the documented example has one at body.items[0].address.country), got null or missing in every row',
        '0 passed, 1 failed',
        '',
      ]);
      expect(wrong.code).to.equal(1);
      // Reading the value where the example has it...
      await fs.writeFile(action, source.replace('"name": name }', '"name": name, "country": address.country }'));
      await fs.writeFile(path.join(tmp.dir, CASES), EXAMPLE_CASE);
      expect(await runScript('test-definitions.ts', ['acme-crm'], { cwd: tmp.dir })).to.deep.include({ code: 0 });
      // ...but a documented example that maps to no rows fails.
      await fs.writeFile(path.join(tmp.dir, CASES), EXAMPLE_CASE.replace('{ items: [{ id: 1, name: First, address: { country: FR } }], next: abc }', '{ items: [], next: abc }').replace('data: [{ id: 1, name: First, country: FR }]', 'data: []'));
      const empty = await runScript('test-definitions.ts', ['acme-crm'], { cwd: tmp.dir });
      expect(empty.stdout).to.include('    example: expected at least one row from the documented example, got no rows');
      expect(empty.code).to.equal(1);
    } finally {
      await tmp.remove();
    }
  });

  it('refuses an example that is not one URL or file name, with its line and column', async () => {
    const tmp = await tempDir('documented-example-');
    try {
      expect(await createApp(path.join(tmp.dir, 'definitions'), 'acme-crm')).to.deep.include({ ok: true });
      await fs.writeFile(path.join(tmp.dir, CASES), EXAMPLE_CASE.replace('https://docs.acme.example/api/items#list', '"the docs"'));
      const run = await runScript('test-definitions.ts', ['acme-crm'], { cwd: tmp.dir });
      expect(run.stdout, run.stdout).to.include(`    ${CASES}:3:5 \`example\` names where the provider documents the response the case answers with: its page's URL (or, for an API of this repository, the file)`);
      expect(run.code).to.equal(1);
    } finally {
      await tmp.remove();
    }
  });

  it('every bundled action has a case answered with its provider\'s documented example', async () => {
    const dir = path.join(ROOT, 'definitions');
    const loaded = await loadDefinitions(dir);
    if (!loaded.ok) throw new Error('the bundled definitions do not load');
    const missing: string[] = [];
    for (const app of loaded.snapshot.apps.values()) {
      for (const version of [...app.versions.values(), ...(app.draft ? [app.draft] : [])]) {
        for (const action of version.actions.values()) {
          const file = path.join(dir, app.file.split('/')[0]!, 'versions', String(version.version), 'actions', `${action.id}.test.yaml`);
          const text = await fs.readFile(file, 'utf8').catch(() => null);
          const cases = text === null ? [] : ((parse(text) as { cases?: { example?: unknown }[] }).cases ?? []);
          if (!cases.some((c) => typeof c.example === 'string')) missing.push(`${app.slug} ${version.version} ${action.id}`);
        }
      }
    }
    expect(missing, 'actions without a documented example case (`example:` in a case)').to.deep.equal([]);
  });
});
