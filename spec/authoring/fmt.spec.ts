import fs from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import { parse } from 'yaml';
import { formatDefinition } from '../../engine/authoring/canonical-yaml.ts';
import { canonicalStringStyle } from '../../engine/authoring/scalar-style.ts';
import { placeOf } from '../../engine/core/definitions/layout.ts';
import { FIXTURES } from '../support/definition-fixtures.ts';
import { ROOT } from './run-script.ts';

const FMT = path.join(ROOT, 'spec/fixtures/authoring/fmt');

/** Every definition file under `root`, with its kind from where it sits below `base`. */
async function definitionFiles(root: string): Promise<{ file: string; kind: 'app' | 'api' | 'auth' | 'action'; text: string }[]> {
  const names = (await fs.readdir(root, { recursive: true })).filter((n) => n.endsWith('.yaml')).sort();
  const found = [];
  for (const name of names) {
    // Fixture cases lay files over the valid folder from their files/ folder: the layout starts after it.
    const relative = name.split(path.sep).join('/').replace(/^(valid|invalid\/[^/]+\/files)\//, '');
    const place = placeOf(relative);
    if (place.kind === 'unexpected') continue;
    found.push({ file: name, kind: place.kind, text: await fs.readFile(path.join(root, name), 'utf8') });
  }
  return found;
}

describe('npm run fmt: the canonical form', () => {
  it('keeps the meaning of every bundled and fixture file, and formatting twice changes nothing', async () => {
    const files = [...(await definitionFiles(path.join(ROOT, 'definitions'))), ...(await definitionFiles(FIXTURES))];
    expect(files.length).to.be.greaterThan(60);
    const broken: string[] = [];
    for (const { file, kind, text } of files) {
      const once = formatDefinition(kind, text);
      if (!once.ok) {
        // Only fixtures that are invalid YAML (or an alias bomb) on purpose may be refused.
        expect(once.reason, file).to.match(/^(not valid YAML|aliases expand|mappings and sequences are nested)/);
        continue;
      }
      if (!isDeepStrictEqual(parse(once.text), parse(text))) broken.push(`${file}: meaning changed`);
      const twice = formatDefinition(kind, once.text);
      if (!twice.ok || twice.changed) broken.push(`${file}: not idempotent`);
      if (!once.text.endsWith('\n') || once.text.endsWith('\n\n')) broken.push(`${file}: not one final newline`);
    }
    expect(broken).to.deep.equal([]);
  });

  it('orders keys as the schema declares them, keeps every comment and the modeline, and writes block collections', async () => {
    const written = await fs.readFile(path.join(FMT, 'commented-action.yaml'), 'utf8');
    const canonical = await fs.readFile(path.join(FMT, 'commented-action.canonical.yaml'), 'utf8');
    const once = formatDefinition('action', written);
    expect(once).to.deep.include({ ok: true, changed: true });
    expect(once.ok && once.text).to.equal(canonical);
    expect(formatDefinition('action', canonical)).to.deep.equal({ ok: true, text: canonical, changed: false });
  });

  it('orders each auth by the schema of its type, with keys the schema does not know last, as written', () => {
    const once = formatDefinition('auth', 'zeta: 1\nvalue: Bearer {{apiKey}}\nalpha: 2\nparameterName: Authorization\nin: Header\nid: api-key\ntype: ApiKey\n');
    expect(once.ok && once.text).to.equal('type: ApiKey\nid: api-key\nin: Header\nparameterName: Authorization\nvalue: Bearer {{apiKey}}\nzeta: 1\nalpha: 2\n');
  });

  it('orders list settings, options, retry and pagination too', () => {
    const api = 'pagination: { key: after, location: Query, type: Cursor }\nretry: { maxAttempts: 4, delayMs: 10 }\nauths: [oauth2]\nbaseUrl: https://x.example\n';
    const once = formatDefinition('api', api);
    expect(once.ok && once.text).to.equal(
      'baseUrl: https://x.example\nauths:\n  - oauth2\nretry:\n  delayMs: 10\n  maxAttempts: 4\npagination:\n  type: Cursor\n  location: Query\n  key: after\n',
    );
    const arg = 'arguments:\n  - list: { options: [{ label: Open, value: open }], type: Fixed }\n    dataType: List\n    key: state\n';
    const action = formatDefinition('action', `id: a\n${arg}`);
    expect(action.ok && action.text).to.equal(
      'id: a\narguments:\n  - key: state\n    dataType: List\n    list:\n      type: Fixed\n      options:\n        - value: open\n          label: Open\n',
    );
  });

  it('writes strings plain where every YAML reader gets them back, quoted otherwise, multi-line as literal blocks', () => {
    const table: [string, string][] = [
      ['List issues', 'PLAIN'],
      ['Bearer {{secretKey}}', 'PLAIN'],
      ['{{token}}', 'QUOTE_DOUBLE'],
      [',', 'QUOTE_DOUBLE'],
      ["'", 'QUOTE_DOUBLE'],
      ['{ "success": true }', 'QUOTE_SINGLE'],
      ['2024-06-20', 'QUOTE_DOUBLE'], // a date to YAML 1.1 readers
      ['yes', 'QUOTE_DOUBLE'], // a boolean to YAML 1.1 readers
      ['100', 'QUOTE_DOUBLE'],
      ['', 'QUOTE_DOUBLE'],
      ['a\nb\n', 'BLOCK_LITERAL'],
    ];
    expect(table.map(([value]) => [value, canonicalStringStyle(value)])).to.deep.equal(table);
  });

  it('leaves empty and comment-only files alone, and drops a lone document start marker', () => {
    expect(formatDefinition('app', '')).to.deep.equal({ ok: true, text: '', changed: false });
    expect(formatDefinition('app', '# to do\n')).to.deep.equal({ ok: true, text: '# to do\n', changed: false });
    expect(formatDefinition('app', '---\nname: A\nid: a\n')).to.deep.equal({ ok: true, text: 'id: a\nname: A\n', changed: true });
  });

  it('refuses, rather than breaks, a file whose alias the key order would put before its anchor', () => {
    expect(formatDefinition('app', 'name: &n acme\nid: *n\nslug: acme\n')).to.deep.include({ ok: false, line: 1, column: 1 });
  });

  it('formats a file that uses one anchor 100 times, and refuses an alias bomb at its alias without expanding it', () => {
    const args = ['  - key: arg0\n    dataType: &type String\n    location: Query'];
    for (let i = 1; i <= 100; i++) args.push(`  - key: arg${i}\n    dataType: *type\n    location: Query`);
    const hundred = `id: a\nslug: a\nname: A\noperation: list\nmethod: GET\npath: /a\narguments:\n${args.join('\n')}\nresponse: x\n`;
    expect(formatDefinition('action', hundred)).to.include({ ok: true });
    const bomb = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let level = 1; level < 9; level++) bomb.push(`a${level}: &a${level} [${Array(9).fill(`*a${level - 1}`).join(', ')}]`);
    const refused = formatDefinition('app', `id: a\n${bomb.join('\n')}\n`);
    expect(refused).to.deep.include({ ok: false, line: 7, column: 10 });
    expect((refused as { reason: string }).reason).to.match(/^aliases expand this file to more than 100000 values/);
  });

  it('refuses a file that is not YAML, with its position', () => {
    expect(formatDefinition('app', 'id: a\nname: [oops\n')).to.deep.include({ ok: false, line: 3, column: 1 });
  });

  it('refuses a file nested deeper than validate takes as nested too deep, at the first level past 100, whatever the depth', () => {
    const TOO_DEEP = /^mappings and sequences are nested more than 100 levels deep here; no definition needs that many: flatten it$/;
    // Block mappings (one level a line), 150 (yaml reads them), 700 (writing them back overflowed) and 3,000 levels (yaml's parser overflowed).
    const nested = (levels: number) => {
      let text = 'id: a\nx-deep:\n';
      for (let i = 1; i <= levels; i++) text += `${'  '.repeat(i)}k:\n`;
      return formatDefinition('app', text);
    };
    for (const levels of [150, 700]) {
      const outcome = nested(levels);
      expect(outcome, `${levels} levels`).to.deep.include({ ok: false, line: 102 });
      expect((outcome as { reason: string }).reason, `${levels} levels`).to.match(TOO_DEEP);
    }
    // So deep yaml's parser gives up before any level is located: said as validate says it, where the parser stopped.
    const far = nested(3000);
    expect(far).to.deep.include({ ok: false });
    expect((far as { reason: string }).reason).to.equal('mappings and sequences are nested thousands of levels deep here (more than 100 may not be); no definition needs that many: flatten it');
    // A flow sequence 300 levels deep on one line: located at its 100th bracket (the file's mapping is level 1).
    const flow = formatDefinition('app', `id: a\nx-deep: ${'['.repeat(300)}${']'.repeat(300)}\n`);
    expect(flow).to.deep.include({ ok: false, line: 2, column: 108 });
    expect((flow as { reason: string }).reason).to.match(TOO_DEEP);
  });
});
