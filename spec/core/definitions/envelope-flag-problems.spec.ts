import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { Writable } from 'node:stream';
import { envelopeFlagFindings } from '../../../engine/core/definitions/envelope-flags.ts';
import { parseJsonata } from '../../../engine/core/definitions/jsonata-syntax/index.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** The flags a response mapping can be seen to get wrong: "<flag> is <what>" at the key's offset. */
function findings(source: string): string[] {
  const parsed = parseJsonata(source);
  expect(parsed.error, source).to.equal(null);
  return envelopeFlagFindings(parsed.ast).map((f) => `${f.offset} ${f.message.split(':')[0]}`);
}

describe('ENVELOPE_FLAG_NOT_BOOLEAN: the warning validate gives when it can see a response mapping give an envelope flag a non-boolean', () => {
  it('reports string and number literals, objects and arrays at success, meta.authenticated and meta.tooManyRequests', () => {
    expect(findings('{ "success": "true", "data": [] }')).to.deep.equal(['2 success is the string "true"']);
    expect(findings('{ "meta": { "authenticated": "maybe", "tooManyRequests": "no" } }')).to.deep.equal([
      '12 meta.authenticated is the string "maybe"',
      '38 meta.tooManyRequests is the string "no"',
    ]);
    expect(findings('{ "success": 1, "meta": { "tooManyRequests": {}, "authenticated": [false] } }')).to.deep.equal([
      '2 success is the number 1',
      '26 meta.tooManyRequests is an object',
      '49 meta.authenticated is an array',
    ]);
  });

  it('looks through conditions and blocks, for the envelope and for the flag', () => {
    expect(findings('status = 404 ? { "success": "no" } : ($x := 1; { "success": $x > 0 ? true : 0 })')).to.deep.equal([
      '17 success is the string "no"',
      '49 success is the number 0',
    ]);
    expect(findings('{ "meta": status = 429 ? { "tooManyRequests": "yes" } : {} }')).to.deep.equal(['27 meta.tooManyRequests is the string "yes"']);
  });

  it('reports nothing it cannot be sure of: booleans, comparisons, paths, variables, functions, null; nor fields of rows or of other objects', () => {
    for (const source of [
      '{ "success": true, "meta": { "authenticated": false, "tooManyRequests": false } }',
      '{ "success": status = 200, "meta": { "authenticated": status = 401 ? false, "tooManyRequests": body.limited } }',
      '{ "success": $exists(body.id), "meta": { "authenticated": null, "tooManyRequests": $limited } }',
      '{ "data": [body.items.{ "success": "a field of a row" }], "meta": { "cursor": "2", "other": { "authenticated": "x" } } }',
      '$f := function() { { "success": "inside a function" } }',
      'body.{ "success": "a path step" }',
      '{ "authenticated": "only under meta" }',
      '"just a string"',
    ]) {
      expect(findings(source), source).to.deep.equal([]);
    }
  });

  it('is a located warning of a response mapping only, not of an argument mapper; the folder still loads', async () => {
    const tmp = await tempDir('defs-flags-');
    try {
      await copyValid(tmp.dir);
      const file = path.join(tmp.dir, 'acme/versions/1/actions/list-lists.yaml');
      const text = await fsp.readFile(file, 'utf8');
      await fsp.writeFile(file, text.replace(/^response:[\s\S]*$/m, 'response: \'{ "success": "false", "data": [] }\'\n'));
      const contacts = path.join(tmp.dir, 'acme/versions/1/actions/list-contacts.yaml');
      await fsp.writeFile(contacts, (await fsp.readFile(contacts, 'utf8')).replace('mapper: $lowercase(value)', 'mapper: \'{ "success": "a mapper builds an argument" }\''));
      const result = await loadDefinitions(tmp.dir);
      expect(result.ok).to.equal(true);
      expect(result.problems).to.deep.equal([]);
      expect(result.warnings.map((p) => `${p.file}:${p.line}:${p.column} ${p.code} ${p.message}`)).to.deep.equal([
        `acme/versions/1/actions/list-lists.yaml:${text.slice(0, text.search(/^response:/m)).split('\n').length}:14 ENVELOPE_FLAG_NOT_BOOLEAN success is the string "false": the engine reads only true or false there, and anything else counts as not said (the status decides); write a boolean or a condition (status = 401 ? false)`,
      ]);
    } finally {
      await tmp.remove();
    }
  });

  it('serves the folder and shows the warning on the status route and in a warn log line', async () => {
    const tmp = await tempDir('defs-flags-');
    try {
      await copyValid(tmp.dir);
      const file = path.join(tmp.dir, 'acme/versions/1/actions/list-lists.yaml');
      await fsp.writeFile(file, (await fsp.readFile(file, 'utf8')).replace(/^response:[\s\S]*$/m, 'response: \'{ "success": "no", "data": [] }\'\n'));
      const lines: { level: number; msg: string }[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      });
      const registry = new DefinitionsRegistry(tmp.dir, createLogger('info', stream));
      const result = await registry.reload('start');
      expect(result.ok).to.equal(true);
      const status = registry.status();
      expect(status.errors).to.deep.equal([]);
      expect(status.warningCount).to.equal(1);
      expect(status.warnings.map((w) => `${w.file} ${w.code}`)).to.deep.equal(['acme/versions/1/actions/list-lists.yaml ENVELOPE_FLAG_NOT_BOOLEAN']);
      expect(status.lastAttempt?.ok).to.equal(true);
      const warned = lines.filter((line) => line.level === 40);
      expect(warned).to.have.length(1);
      expect(warned[0]!.msg).to.include('list-lists.yaml').and.to.include('ENVELOPE_FLAG_NOT_BOOLEAN');
    } finally {
      await tmp.remove();
    }
  });
});
