import { expect } from 'chai';
import { checkedExpression, expressionProblem } from '../../../engine/core/definitions/expressions.ts';
import { parseDefinitionFile } from '../../../engine/core/definitions/parsed-file.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';

/**
 * A JSONata syntax error is reported at the offending character in the file,
 * however the YAML string is written. Each case marks that character with
 * the only "}" or ")" the expression has where the error is.
 */
const CASES: { style: string; yaml: string; offending: string }[] = [
  { style: 'plain scalar', yaml: 'response: $count(body.items}\n', offending: '}' },
  { style: 'double-quoted with escapes', yaml: 'response: "{ \\"data\\": body.items, \\"x\\": \\u0031, }"\n', offending: '}' },
  { style: "single-quoted with ''", yaml: "response: '{ ''data'': body.items, }'\n", offending: '}' },
  { style: 'block literal |', yaml: 'response: |\n  {\n    "data": body.items,\n    "meta": { "cursor": body.next },\n  }\n', offending: '}' },
  { style: 'block literal with deeper indentation', yaml: 'arguments:\n  - key: tags\n    mapper: |\n      $map(value, function($v) {\n        $lowercase($v)\n      }}\n', offending: '}' },
  { style: 'folded block >', yaml: 'response: >\n  { "data":\n  body.items, }\n', offending: '}' },
  { style: 'plain scalar over two lines', yaml: 'response: $append(body.items,\n  body.more}\n', offending: '}' },
];

describe('JSONata syntax errors are located inside the YAML string', () => {
  for (const { style, yaml, offending } of CASES) {
    it(`${style}`, () => {
      const text = yaml;
      const parsed = parseDefinitionFile(sourceFile('x.yaml', text)).parsed;
      expect(parsed, 'the YAML itself parses').to.not.equal(null);
      const path = text.startsWith('arguments') ? ['arguments', 0, 'mapper'] : ['response'];
      const source = parsed!.scalarAt(path)!.value as string;
      const problem = expressionProblem(parsed!, path, source);
      expect(problem?.code).to.equal('JSONATA_SYNTAX');
      const line = text.split('\n')[problem!.line - 1]!;
      expect(line[problem!.column - 1], `${problem!.line}:${problem!.column} in ${JSON.stringify(line)}`).to.equal(offending);
    });
  }

  it('names the JSONata error code and message', () => {
    const parsed = parseDefinitionFile(sourceFile('x.yaml', 'response: $sum(body.items\n')).parsed!;
    const problem = expressionProblem(parsed, ['response'], '$sum(body.items');
    expect(problem!.message).to.equal('JSONata: Expected ")" before end of expression (S0203)');
  });

  it('locates a compiled expression at the first character of its text, for errors at run time', () => {
    const parsed = parseDefinitionFile(sourceFile('x.yaml', 'id: a\nresponse: |\n  body.items\n')).parsed!;
    expect(expressionProblem(parsed, ['response'], 'body.items\n')).to.equal(null);
    const compiled = checkedExpression(parsed, ['response'], 'body.items\n');
    expect(compiled.at).to.deep.equal({ file: 'x.yaml', line: 3, column: 3 });
  });
});
