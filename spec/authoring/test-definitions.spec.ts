import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { parseCaseFile } from '../../engine/authoring/case-file.ts';
import { createApp } from '../../engine/authoring/create-app.ts';
import { runDefinitionTests } from '../../engine/authoring/definition-tests.ts';
import { differences, formatDifference } from '../../engine/authoring/structural-diff.ts';
import { loadDefinitions } from '../../engine/core/definitions/loader.ts';
import { tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

const CASES = 'definitions/acme-crm/versions/draft/actions/list-items.test.yaml';

/** A failing case: the page size sent and a row's name differ from what the engine does. */
const FAILING = `cases:
  - name: lists the first page
    connection:
      credentials: { apiKey: test-key }
    arguments: { limit: 2 }
    request:
      method: GET
      url: https://api.example.com/items
      query: { limit: "3" }
      headers: { authorization: Bearer other-key }
    response:
      status: 200
      body: { items: [{ id: 1, name: First }, { id: 2, name: Second }], next: abc }
    expect:
      success: true
      data: [{ id: 1, name: Primero }]
      meta: { cursor: abd }
  - name: refuses a page size that is not a number
    connection:
      credentials: { apiKey: test-key }
    arguments: { limit: lots }
    expect:
      error: { code: VALIDATION_ERROR, message: "limit: must be a number" }
  - name: expects an error but gets an envelope
    connection:
      credentials: { apiKey: test-key }
    response:
      status: 200
      body: { items: [] }
    expect:
      error: { code: NOT_FOUND }
  - name: records a response no request asks for
    connection:
      credentials: { apiKey: test-key }
    arguments: { limit: nine }
    response:
      status: 200
      body: { items: [] }
    expect:
      error: { code: VALIDATION_ERROR }
`;

describe('npm run test:definitions', function () {
  this.timeout(30_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('test-definitions-');
  });
  afterEach(() => tmp.remove());

  const scaffold = async (slug = 'acme-crm') => expect(await createApp(path.join(tmp.dir, 'definitions'), slug)).to.deep.include({ ok: true });

  it('passes the scaffold of npm run new-app as generated', async () => {
    await scaffold();
    const run = await runScript('test-definitions.ts', ['acme-crm'], { cwd: tmp.dir });
    expect(run).to.deep.equal({
      code: 0,
      stdout: ['✔ acme-crm draft list-items: lists the first page', '✔ acme-crm draft list-items: ends on the last page without a cursor', '2 passed, 0 failed', ''].join('\n'),
      stderr: '',
    });
  });

  it('reports each failing case with what differed, by path, and exits 1', async () => {
    await scaffold();
    await fs.writeFile(path.join(tmp.dir, CASES), FAILING);
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.equal(
      [
        '✘ acme-crm draft list-items: lists the first page',
        `    at ${CASES}:2`,
        '    request.query.limit: expected "3", got "2"',
        '    request.headers.authorization: expected "Bearer other-key", got "Bearer test-key"',
        '    expect.data[0].name: expected "Primero", got "First"',
        '    expect.data[1]: expected no such item, got {"id":2,"name":"Second"}',
        '    expect.meta.cursor: expected "abd", got "abc"',
        '✘ acme-crm draft list-items: refuses a page size that is not a number',
        `    at ${CASES}:18`,
        '    expect.error.message: expected "limit: must be a number", got "limit: must be a number (got \\"lots\\")"',
        '✘ acme-crm draft list-items: expects an error but gets an envelope',
        `    at ${CASES}:24`,
        '    expect.error: expected error NOT_FOUND, got an envelope {"success":true,"data":[]}',
        '✘ acme-crm draft list-items: records a response no request asks for',
        `    at ${CASES}:32`,
        '    request: expected a request, got no request',
        '0 passed, 4 failed',
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(1);
  });

  it('reports a case file that does not match the format with file:line:column, counts it failed and exits 1', async () => {
    await scaffold();
    await fs.writeFile(
      path.join(tmp.dir, CASES),
      ['cases:', '  - name: one', '    argumnts: { limit: 2 }', '    request: { method: GET }', '    expect: { success: yes please }', '  - name: one', '    expect: { data: 3 }', ''].join('\n'),
    );
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(run.stdout).to.equal(
      [
        `✘ acme-crm draft list-items: ${CASES} is not a valid case file`,
        `    ${CASES}:3:5 unknown key "argumnts" (allowed: name, example, connection, arguments, lookups, request, response, responses, expect)`,
        `    ${CASES}:4:5 a case with a \`request\` needs the \`response\` the provider answers`,
        `    ${CASES}:5:15 \`expect.success\` must be true or false`,
        `    ${CASES}:7:15 \`expect.data\` must be a list (the envelope's data is always an array)`,
        '0 passed, 1 failed',
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(1);

    await fs.writeFile(path.join(tmp.dir, CASES), 'cases:\n  - name: [unclosed\n');
    const broken = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(broken.stdout).to.match(new RegExp(`^✘ acme-crm draft list-items: ${CASES} is not a valid case file\n    ${CASES}:\\d+:\\d+ not valid YAML: `));
    expect(broken.code).to.equal(1);
  });

  it('runs one app\'s cases when given its slug or id, and refuses an unknown app with exit 2', async () => {
    await scaffold('acme-crm');
    await scaffold('zen-desk');
    const one = await runScript('test-definitions.ts', ['zen-desk'], { cwd: tmp.dir });
    expect(one.stdout.split('\n').filter((line) => line.startsWith('✔'))).to.deep.equal([
      '✔ zen-desk draft list-items: lists the first page',
      '✔ zen-desk draft list-items: ends on the last page without a cursor',
    ]);
    expect(one.stdout).to.match(/\n2 passed, 0 failed\n$/);
    const all = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(all.stdout).to.match(/^✔ acme-crm draft/);
    expect(all.stdout).to.match(/\n4 passed, 0 failed\n$/);

    const unknown = await runScript('test-definitions.ts', ['nope'], { cwd: tmp.dir });
    expect(unknown).to.deep.equal({ code: 2, stdout: '', stderr: 'no app with slug or id "nope" (there are: acme-crm, zen-desk)\n' });
    const usage = await runScript('test-definitions.ts', ['a', 'b'], { cwd: tmp.dir });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.equal('unexpected argument b\nusage: npm run test:definitions -- [--dir <folder>] [<app>]\n');
  });

  it('exits 2 with the located problems when the definitions do not load', async () => {
    await scaffold();
    await fs.appendFile(path.join(tmp.dir, 'definitions/acme-crm/versions/draft/actions/list-items.yaml'), 'method: FETCH\n');
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir, env: { DEFINITIONS_DIR: 'definitions' } });
    expect(run.code).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^definitions\/acme-crm\/versions\/draft\/actions\/list-items\.yaml:\d+:\d+ /);
    expect(run.stderr).to.match(/problems? in the definitions: fix them \(npm run validate\) before running their tests\n$/);
  });

  it('reports a request beyond the recorded responses, and retries through several responses', async () => {
    await scaffold();
    const base = 'connection:\n      credentials: { apiKey: k }\n';
    await fs.writeFile(
      path.join(tmp.dir, CASES),
      `cases:
  - name: retries a 429 and answers the second response
    ${base}    request: { url: https://api.example.com/items }
    responses:
      - { status: 429, headers: { retry-after: "0" }, body: { items: [] } }
      - { status: 200, body: { items: [{ id: 7, name: Seven }] } }
    expect: { success: true, data: [{ id: 7, name: Seven }], meta: { retries: 1 } }
  - name: a 429 on every attempt is more requests than recorded
    ${base}    response: { status: 429, headers: { retry-after: "0" } }
    expect: { success: false }
`,
    );
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(run.stdout.split('\n').slice(0, 4)).to.deep.equal([
      '✔ acme-crm draft list-items: retries a 429 and answers the second response',
      '✘ acme-crm draft list-items: a 429 on every attempt is more requests than recorded',
      `    at ${CASES}:10`,
      '    request 2: expected no more requests, got GET https://api.example.com/items',
    ]);
    expect(run.stdout).to.match(/\n1 passed, 1 failed\n$/);
  });

  it('compares expect.meta.appError as a subset: fields the case does not list are not differences', async () => {
    await scaffold();
    const base = 'connection:\n      credentials: { apiKey: k }\n';
    await fs.writeFile(
      path.join(tmp.dir, CASES),
      `cases:
  - name: names only the code of the app's error
    ${base}    response: { status: 404, body: { message: gone } }
    expect: { success: false, meta: { appError: { code: HTTP_404 } } }
  - name: names a code and a status that differ
    ${base}    response: { status: 404, body: { message: gone } }
    expect: { success: false, meta: { appError: { code: NOT_FOUND, status: 404, details: { why: gone } } } }
`,
    );
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(run.stdout.split('\n').slice(0, 6)).to.deep.equal([
      "✔ acme-crm draft list-items: names only the code of the app's error",
      '✘ acme-crm draft list-items: names a code and a status that differ',
      `    at ${CASES}:7`,
      '    expect.meta.appError.code: expected "NOT_FOUND", got "HTTP_404"',
      '    expect.meta.appError.details: expected {"why":"gone"}, got no such field',
      '1 passed, 1 failed',
    ]);
  });

  it('says why a run failed when a case expects success: the envelope\'s meta.error code and message, not only "got false"', async () => {
    await scaffold();
    const action = path.join(tmp.dir, 'definitions/acme-crm/versions/draft/actions/list-items.yaml');
    const source = await fs.readFile(action, 'utf8');
    await fs.writeFile(action, `${source.slice(0, source.indexOf('response: |'))}response: |\n  ( $f := function($n){ $f($n + 1) }; $f(0) )\n`);
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(run.code).to.equal(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).to.equal('✘ acme-crm draft list-items: lists the first page');
    expect(lines[2]).to.match(/^    expect\.success: expected true, got false \(meta\.error MAPPING_ERROR: acme-crm\/versions\/draft\/actions\/list-items\.yaml:16:\d+: the mapping was stopped after \d+ ms \(MAPPING_TIMEOUT_MS\); check for an infinite loop\)$/);
    expect(run.stderr).to.equal('');
  });

  it('runs the retry policy as written but never really waits: a 20 s Retry-After and a reset 8 s away pass at once', async () => {
    await scaffold();
    const api = path.join(tmp.dir, 'definitions/acme-crm/versions/draft/api.yaml');
    const resetIn = (seconds: number) => String(Math.floor(Date.now() / 1000) + seconds);
    await fs.writeFile(api, `${await fs.readFile(api, 'utf8')}retry:\n  maxAttempts: 3\n  resetHeader: { name: x-ratelimit-reset }\n`);
    const base = 'connection:\n      credentials: { apiKey: k }\n';
    await fs.writeFile(
      path.join(tmp.dir, CASES),
      `cases:
  - name: waits out a Retry-After of 20 s, then a reset 8 s away, without waiting
    ${base}    responses:
      - { status: 429, headers: { retry-after: "20" }, body: { items: [] } }
      - { status: 429, headers: { x-ratelimit-reset: "${resetIn(8)}" }, body: { items: [] } }
      - { status: 200, body: { items: [{ id: 7, name: Seven }] } }
    expect: { success: true, data: [{ id: 7, name: Seven }], meta: { retries: 2 } }
`,
    );
    const started = Date.now();
    const lines: string[] = [];
    const summary = await runDefinitionTests(path.join(tmp.dir, 'definitions'), { write: (line) => lines.push(line) });
    expect(lines).to.deep.equal(['✔ acme-crm draft list-items: waits out a Retry-After of 20 s, then a reset 8 s away, without waiting', '1 passed, 0 failed']);
    expect(summary.exitCode).to.equal(0);
    expect(Date.now() - started).to.be.below(10_000);
  });

  it('runs a definition on a private address: nothing leaves the process, so the egress policy does not apply', async () => {
    await scaffold();
    const api = path.join(tmp.dir, 'definitions/acme-crm/versions/draft/api.yaml');
    await fs.writeFile(api, (await fs.readFile(api, 'utf8')).replace('https://api.example.com', 'http://127.0.0.1:4010/v1'));
    const cases = path.join(tmp.dir, CASES);
    await fs.writeFile(cases, (await fs.readFile(cases, 'utf8')).replaceAll('https://api.example.com/items', 'http://127.0.0.1:4010/v1/items'));
    const run = await runScript('test-definitions.ts', [], { cwd: tmp.dir });
    expect(run.stdout).to.match(/\n2 passed, 0 failed\n$/);
    expect(run.code).to.equal(0);
  });

  it('passes every bundled app\'s cases in process, and every bundled action has cases', async function () {
    // Every case of 64 apps: ~10 s on a quiet machine, 29 s seen at load 10; the suite's 30 s was too close.
    this.timeout(120_000);
    const dir = path.join(ROOT, 'definitions');
    const loaded = await loadDefinitions(dir);
    if (!loaded.ok) throw new Error('the bundled definitions do not load');
    const missing: string[] = [];
    for (const app of loaded.snapshot.apps.values()) {
      for (const version of [...app.versions.values(), ...(app.draft ? [app.draft] : [])]) {
        for (const action of version.actions.values()) {
          const file = path.join(dir, app.file.split('/')[0]!, 'versions', String(version.version), 'actions', `${action.id}.test.yaml`);
          const text = await fs.readFile(file, 'utf8').catch(() => null);
          const cases = text === null ? [] : ((parse(text) as { cases?: unknown[] }).cases ?? []);
          if (cases.length === 0) missing.push(`${app.slug} ${version.version} ${action.id}`);
        }
      }
    }
    expect(missing, 'actions without offline test cases').to.deep.equal([]);
    const lines: string[] = [];
    const summary = await runDefinitionTests(dir, { write: (line) => lines.push(line) });
    expect(lines.filter((line) => !line.startsWith('✔'))).to.deep.equal([`${summary.passed} passed, 0 failed`]);
    expect(summary.exitCode).to.equal(0);
  });
});

describe('offline test cases: the structural diff', () => {
  it('lists differences by path: changed values, missing and extra keys and items', () => {
    const found = differences('expect.data', [{ id: 1, tags: ['a'], 'odd key': 1 }], [{ id: '1', tags: ['a', 'b'], extra: null }]);
    expect(found.map(formatDifference)).to.deep.equal([
      'expect.data[0].id: expected 1, got "1"',
      'expect.data[0].tags[1]: expected no such item, got "b"',
      'expect.data[0]["odd key"]: expected 1, got no such field',
      'expect.data[0].extra: expected no such field, got null',
    ]);
  });

  it('compares only the listed keys of a subset', () => {
    expect(differences('expect.meta', { cursor: 'a' }, { cursor: 'a', retries: 0 }, 'subset')).to.deep.equal([]);
    expect(differences('expect.meta', { cursor: 'a' }, { retries: 0 }, 'subset').map(formatDifference)).to.deep.equal(['expect.meta.cursor: expected "a", got no such field']);
  });

  it('parses a case file into cases with their lines and the exchanges in order', () => {
    const parsed = parseCaseFile(`cases:
  - name: one
    lookups: [{ response: { status: 200, body: [] } }]
    request: { method: get }
    responses: [{ status: 429 }, { status: 200 }]
    expect: { error: { code: X } }
`);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.cases[0]!.line).to.equal(2);
    expect(parsed.cases[0]!.exchanges.map((e) => [e.label, e.response.status])).to.deep.equal([
      ['lookups[0]', 200],
      ['request', 429],
      ['request (attempt 2)', 200],
    ]);
    expect(parsed.cases[0]!.expect).to.deep.equal({ kind: 'error', code: 'X' });
  });

  it('takes { request, response } items in responses as calls with their own expected request', () => {
    const parsed = parseCaseFile(`cases:
  - name: renews
    request: { url: https://api.example.com/items }
    responses:
      - { status: 401 }
      - { request: { url: https://auth.example.com/token }, response: { status: 200, body: { access_token: t } } }
      - { status: 200 }
    expect: { success: true }
`);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.cases[0]!.exchanges.map((e) => [e.label, e.request?.url])).to.deep.equal([
      ['request', 'https://api.example.com/items'],
      ['responses[1]', 'https://auth.example.com/token'],
      ['request (attempt 3)', 'https://api.example.com/items'],
    ]);
  });
});
