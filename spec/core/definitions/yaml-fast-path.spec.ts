import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { CORE_SCHEMA, load } from 'js-yaml';
import { parseDocument, stringify } from 'yaml';
import { fastValue, parseDefinitionFile, YAML_DECIDES } from '../../../engine/core/definitions/parsed-file.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';

/** What the loader read before the fast path, and reads still for whatever js-yaml refuses. */
function yamlReading(text: string): { ok: true; value: unknown } | { ok: false } {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  return document.errors.length ? { ok: false } : { ok: true, value: document.toJS({ maxAliasCount: 100 }) };
}

/** The fast path may refuse anything (then `yaml` decides), but what it accepts it must read as `yaml` does. */
function expectSameMeaning(text: string): void {
  const fast = fastValue(text);
  if (!fast.ok) return;
  const slow = yamlReading(text);
  expect(slow.ok, `js-yaml accepted what yaml rejects:\n${text}`).to.equal(true);
  if (slow.ok) expect(fast.value, text).to.deep.equal(slow.value);
}

async function yamlFilesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && /\.ya?ml$/.test(e.name)).map((e) => path.join(e.parentPath, e.name));
}

describe('the YAML fast path (js-yaml for files it accepts, yaml for the rest)', () => {
  it('reads every bundled definition, test case and fixture exactly as yaml does', async () => {
    const files = [...(await yamlFilesUnder('definitions')), ...(await yamlFilesUnder('spec/fixtures'))];
    expect(files.length).to.be.greaterThan(150);
    let accepted = 0;
    for (const file of files) {
      const text = await fs.readFile(file, 'utf8');
      expectSameMeaning(text);
      if (fastValue(text).ok) accepted++;
    }
    // Most files take the fast path. The rest are deliberately broken fixtures, and mappings whose JSONata closes a
    // bracket before a colon (`cond ? {...} : {...}`, `$x[0]: ...`), which the conservative `[\]}][\t ]*:` rule sends to
    // yaml: the curated apps have many (79.7% of 869 files took the fast path with the first six curated apps; 65.2% of
    // the files with 32, whose mappings branch more). The share is not a speed target (the scale bench's generated
    // definitions are); it guards against the fast path silently turning most files away.
    expect(accepted / files.length).to.be.greaterThan(0.6);
  });

  it('resolves plain scalars by the YAML 1.2 core schema, as yaml does', () => {
    const scalars = ['0b101', '-0b1', '+0x1F', '-0o7', '+.5', '-.5e3', '[-0]', '1_000', '0o17', '0x1F', '+12', '-.5', '.5', '1.', '1e3', '1E+3', '.inf', '-.Inf', '.NaN', '~', 'Null', 'yes', 'On', 'TRUE', 'True', 'false', '2020-01-01', '012', '+0o7', '1:20', '12345678901234567890', '0.', '-0', '1e', '0x', '.e1', "'it''s'", '"\\u00e9\\x41\\t"', '"a\\\n  b"', '!!str 12', '!!int "7"', '!!float 1', '!!null ""', '!!bool true'];
    for (const scalar of scalars) expectSameMeaning(`a: ${scalar}\n`);
  });

  it('leaves to yaml what it would read differently: directives, aliases, complex keys, unknown tags, empty files', () => {
    for (const text of ['%YAML 1.1\n---\na: yes\n', 'a: &x [1]\nb: *x\n', '? [a, b]\n: c\n', 'a: !foo x\n', '', '# only a comment\n', '...\n']) {
      expect(fastValue(text).ok, JSON.stringify(text)).to.equal(false);
    }
    // What js-yaml 4 reads and yaml refuses or reads otherwise: a comment with no space before it, a blank
    // more-indented first line of a block scalar, content after `---`, collections as keys, `-0`.
    for (const text of ["a: ''#'\n", 'a: "a"#b\n', 'a: [1]#x\n', 'a: {b: 1}#x\n', 'a: >-\n   \n  #\n', 'a: |\n   \n  #\n', '---a: 1\n', '--- a: 1\n', '----: 1\n', '{}: 1\n', '[a]: 1\n', 'a: {[x]: 1}\n', 'a: [[x]: 1]\n', 'a: {[x], y}\n', 'a: {y, {x: 1}}\n', 'a: -0\n', 'a: *x\n']) {
      expect(fastValue(text).ok, JSON.stringify(text)).to.equal(false);
    }
    // ...and the loader still reads them as yaml does.
    expect(parseDefinitionFile(sourceFile('x.yaml', '%YAML 1.1\n---\na: yes\n')).parsed!.value).to.deep.equal({ a: true });
    expect(parseDefinitionFile(sourceFile('x.yaml', 'a: &x [1]\nb: *x\n')).parsed!.value).to.deep.equal({ a: [1], b: [1] });
    expect(parseDefinitionFile(sourceFile('x.yaml', '')).parsed!.value).to.equal(null);
  });

  it('refuses what is not JSON, located: an unknown tag, the bytes, dates and sets YAML 1.1 tags make, a key set twice (named), a file nested too deep to parse', () => {
    const problem = (text: string) => {
      const { parsed, problems } = parseDefinitionFile(sourceFile('x.yaml', text));
      expect(parsed, text).to.equal(null);
      return problems.map((p) => `${p.line}:${p.column} ${p.code} ${p.message}`);
    };
    expect(problem('a: 1\nb: !foo x\n')).to.deep.equal(["2:4 YAML_SYNTAX Unresolved tag: !foo: a definition uses YAML's core tags only (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)"]);
    expect(problem('a: 1\nb: !!binary aGVsbG8=\n')[0]).to.match(/^2:\d+ YAML_SYNTAX this value is not JSON \(Buffer, from a YAML 1\.1 tag such as !!binary/);
    expect(problem('a: [!!timestamp 2020-01-01]\n')[0]).to.match(/^1:\d+ YAML_SYNTAX this value is not JSON \(Date/);
    expect(problem('%YAML 1.1\n---\na: !!set {x, y}\n')[0]).to.match(/^3:\d+ YAML_SYNTAX this value is not JSON \(Set/);
    expect(parseDefinitionFile(sourceFile('x.yaml', 'a: !!str 1\nb: !!map {c: !!int "2"}\n')).parsed!.value).to.deep.equal({ a: '1', b: { c: 2 } });
    expect(problem('a: 1\nb: 2\na: 3\n')).to.deep.equal(['3:1 YAML_SYNTAX Map keys must be unique: "a" is set twice in this mapping']);
    // Nested past what the parser itself can read: said as depth, not as the parser's stack or a JSONata hint.
    const [deep] = problem(`id: x\nx: ${'{a: '.repeat(5_000)}1${'}'.repeat(5_000)}\n`);
    expect(deep).to.match(/^2:\d+ YAML_TOO_DEEP mappings and sequences are nested thousands of levels deep here/);
  });

  it('never lets js-yaml expand an alias: every file with an anchor goes to yaml (its alias-expansion limit applies)', () => {
    const token = fc.constantFrom('a', 'b', ': ', '- ', '&a ', '&a', '*a', '[', ']', '{', '}', ',', ' ', '\n', '\n  ', '\t', '!', '?', '? ', '|', '"', "'", '#', '1', '-');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }).map((tokens) => tokens.join('')), (text) => {
        if (!fastValue(text).ok) return;
        const anchors: number[] = [];
        load(text, { schema: CORE_SCHEMA, listener: (_event, state) => void anchors.push(Object.keys((state as unknown as { anchorMap: object }).anchorMap).length) });
        expect(Math.max(0, ...anchors), text).to.equal(0);
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with yaml on generated documents in every style yaml writes', () => {
    const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('id', 'on', 'null', '1', '<<', 'a b', '-x', '? y', '#z'));
    const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.double({ noNaN: true }), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('0x1F', '1e3', '.inf', 'yes', '~', '- a', 'a: b', '{x}', '"q"', "'q'", '|', '>', '\t', ' lead', 'trail ', 'line\nbreak'));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
    })).node;
    const style = fc.record({ collectionStyle: fc.constantFrom('any', 'block', 'flow'), defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED') } as const);
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), style, (doc, options) => expectSameMeaning(stringify(doc, options))),
      { numRuns: 1500 },
    );
  });

  it('agrees with yaml on hand-typed plain, quoted and block scalars', () => {
    const line = fc.stringMatching(/^[ -~]{0,16}$/);
    const text = fc.oneof(
      line.map((s) => `a: ${s}\n`),
      line.map((s) => `a: "${s}"\n`),
      line.map((s) => `a: '${s}'\n`),
      fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => `a: |\n${lines.map((l) => `  ${l}`).join('\n')}\nb: 1\n`),
      fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => `a: >-\n${lines.map((l) => `  ${l}`).join('\n')}\n`),
      fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => `- ${lines.join('\n- ')}\n`),
    );
    fc.assert(fc.property(text, expectSameMeaning), { numRuns: 3000 });
  });

  it('agrees with yaml on documents stitched from YAML tokens (what a typo or a stray character makes)', () => {
    const token = fc.constantFrom('a', 'b', ':', ': ', '- ', '-', '?', '? ', '!', '!!str ', '!x ', '&a ', '*a', '|', '|-', '>', '>+', '|2', '"', "'", '#', ' #', '[', ']', '{', '}', ',', ' ', '  ', '\n', '\n  ', '\n    ', '\t', '1', '0x1', '.5', 'null', '~', 'true', '%', '---', '...', '\\', 'é', '@', '`', '=', '!=', '<<', 'e3', '+', '.inf');
    fc.assert(fc.property(fc.array(token, { maxLength: 24 }).map((tokens) => tokens.join('')), expectSameMeaning), { numRuns: 5000 });
  });

  it('tests a guard only when the text holds one of the strings the guard cannot match without', () => {
    const token = fc.constantFrom('a', ':', ': ', '- ', '-', '?', '? ', '!', '&a', '|', '|2', '|+', '>', '"', "'", '#', '[', ']', '{', '}', ',', ' ', '\n', '\n  ', '\t', '0', '0b1', '0x1', '0o7', '-0', '-.5', '+.5', '.', 'null', 'Null', 'NULL', '~', '%', '---', '...');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 20 }).map((tokens) => tokens.join('')), (text) => {
        for (const [pattern, needs] of YAML_DECIDES) {
          if (needs && pattern.test(text)) expect(needs.some((part) => text.includes(part)), `${pattern} matched ${JSON.stringify(text)} without any of ${needs.join(' ')}`).to.equal(true);
        }
      }),
      { numRuns: 20_000 },
    );
  });
});
