import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import jsonata from 'jsonata';
import { expressionsOf } from '../../../engine/core/definitions/file-analysis.ts';
import { JSONATA_VERSION, jsonataSyntaxError } from '../../../engine/core/definitions/jsonata-syntax/index.ts';
import { parseDefinitionFile } from '../../../engine/core/definitions/parsed-file.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';
import { expressionProblem } from '../../../engine/core/definitions/expressions.ts';
import { expression } from '../../support/generated-expressions.ts';

/** What expressionProblem reports of an error: all jsonata() says of it but its stack. */
const FIELDS = ['code', 'position', 'token', 'value', 'message'] as const;
const reported = (error: object | null) => (error ? Object.fromEntries(FIELDS.map((field) => [field, (error as Record<string, unknown>)[field]])) : null);

function jsonatasError(source: string): object | null {
  try {
    jsonata(source);
    return null;
  } catch (thrown) {
    return thrown as object;
  }
}

/** The copy answers as jsonata() does: valid, or the same error. */
function expectSameAnswer(source: string): void {
  expect(reported(jsonataSyntaxError(source)), source).to.deep.equal(reported(jsonatasError(source)));
}

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** One or more invalid expressions for every error the tokenizer, the parser, processAST and the signature parser throw. */
const INVALID: [string, string[]][] = [
  ['S0101', ['"abc', "'abc", '$x & "a']],
  ['S0102', ['1e999', 'a + 2e400']],
  ['S0103', ['"\\q"', '"a\\x"']],
  ['S0104', ['"\\u12"', '"\\u12zz"']],
  ['S0105', ['`abc', 'a.`b']],
  ['S0106', ['/* x', 'a /* b']],
  ['S0201', ['1 2', 'a b', '"a".b c', '$x := 1 2']],
  ['S0202', ['(1;2]', '[1,2)', '{"a" 1}', 'f(1 2', 'function($x){1]']],
  ['S0203', ['(1', '[1, 2', '{"a": 1', '$f(', 'a[0']],
  ['S0204', ['1 ~ 2', 'a ~ b']],
  ['S0207', ['1 +', 'a.', '-', 'a and']],
  ['S0208', ['function(a){1}', 'function($a, 2){1}']],
  ['S0209', ['$x{"k":1}[0]']],
  ['S0210', ['a{"x":1}{"y":2}']],
  ['S0211', [']', ')', '1 + )', '?', ':', 'a.(]']],
  ['S0212', ['a := 1', '1 := 2']],
  ['S0213', ['a.1', 'a.true', 'a.null']],
  ['S0214', ['a@b', 'a#1', 'a@"x"']],
  ['S0215', ['a[0]@$x', 'a.b[1]@$x', 'a[0]#$i@$x']],
  ['S0216', ['a^(b)@$x', 'a.b^(c)@$x']],
  ['S0217', ['%', '%.a', '(%)']],
  ['S0301', ['$match(a, //)']],
  ['S0302', ['$match(a, /abc', '/x']],
  ['S0401', ['function($x)<n<n>>{1}']],
  ['S0402', ['function($x)<(sa<n>)>{1}']],
];

describe('the JSONata syntax check (jsonata 2.2.2 parser, symbol table built once)', () => {
  it('says an expression too long for the parser is too long (200,000 terms), not that the call stack ran out', () => {
    const source = Array.from({ length: 200_000 }, (_, i) => String(i)).join(' + ');
    const parsed = parseDefinitionFile(sourceFile('x.yaml', `response: '${source}'\n`)).parsed!;
    const problem = expressionProblem(parsed, ['response'], source);
    expect(problem?.code).to.equal('JSONATA_SYNTAX');
    expect(problem?.message).to.equal(`JSONata: the expression is too long or nested too deep for the JSONata parser (${source.length} characters): split it, or compute the long part with a function such as $map or $reduce`);
  });

  it('is a copy of the jsonata version installed: upgrading jsonata means copying its parser again', () => {
    const installed = JSON.parse(fs.readFileSync('package.json', 'utf8')).dependencies.jsonata;
    expect(installed, 'engine/core/definitions/jsonata-syntax/README.md says how to re-sync the copy').to.equal(JSONATA_VERSION);
    expect(JSON.parse(fs.readFileSync('node_modules/jsonata/package.json', 'utf8')).version).to.equal(JSONATA_VERSION);
  });

  it('answers as jsonata() on every expression of the bundled definitions and fixtures', () => {
    let count = 0;
    for (const file of [...yamlFiles('definitions'), ...yamlFiles('spec/fixtures')]) {
      const { parsed } = parseDefinitionFile(sourceFile(file, fs.readFileSync(file, 'utf8')));
      for (const [, text] of parsed ? expressionsOf(parsed.value) : []) {
        expectSameAnswer(text);
        count++;
      }
    }
    expect(count).to.be.greaterThan(50);
  });

  it('gives the same error code, position, token, value and message on every syntax error jsonata can raise', () => {
    const seen = new Set<string>();
    for (const [code, sources] of INVALID) {
      for (const source of sources) {
        expect((jsonatasError(source) as { code?: string } | null)?.code, source).to.equal(code);
        expectSameAnswer(source);
        seen.add(code);
      }
    }
    // A regular expression JavaScript refuses: jsonata lets the SyntaxError through.
    for (const source of ['$match(a, /(/)', '$match(a, /[/)', '$match(a, /x/q)']) expectSameAnswer(source);
    expect(seen.size).to.equal(INVALID.length);
  });

  it('answers as jsonata() on the expressions of the fast path differential tests', () => {
    for (const file of fs.readdirSync('spec/core/mapping').filter((name) => name.startsWith('fast-path'))) {
      const text = fs.readFileSync(path.join('spec/core/mapping', file), 'utf8');
      for (const [, quote, body] of text.matchAll(/(?:fastly|expectAgreement|guardedJsonata|jsonata)\((['`])((?:\\.|(?!\1).)*)\1/g)) {
        expectSameAnswer(quote === '`' ? body!.replace(/\\`/g, '`') : body!.replace(/\\'/g, "'").replace(/\\\\/g, '\\'));
      }
    }
    fc.assert(fc.property(expression, (source) => expectSameAnswer(source)), { numRuns: 1000 });
  });

  it('answers as jsonata() on soups of JSONata tokens, valid and not (state left by one parse never leaks into the next)', () => {
    const token = fc.constantFrom(
      'a', 'b.c', '$x', '$$', '$', '1', '-2.5e3', '"s"', "'t'", '`q r`', 'true', 'null', '(', ')', '[', ']', '{', '}', ',', ';', ':', '.', '..', '+', '-', '*', '**', '/', '%',
      '=', '!=', '<', '<=', '>', '>=', '&', '?', '?:', '??', ':=', '~>', '@', '#', '^', '|', 'and', 'or', 'in', 'function', 'function($x){$x}', '<n:n>', '$f(', '$count(a)',
      '/ab/i', '/', '/*c*/', '/*', '"\\u00e9"', '"\\q', '1e999', '!', '~', '\\', ' ', '\n', 'λ', '[]', '{}', '%.', 'a[0]', 'a{"k": v}', '$match(a, /x/)',
    );
    fc.assert(fc.property(fc.array(token, { maxLength: 16 }).map((tokens) => tokens.join('')), (source) => expectSameAnswer(source)), { numRuns: 5000 });
  });
});
