/**
 * A YAML syntax error on a line that holds an unquoted JSONata expression
 * (`next: body.paging ? body.paging.next : undefined`) is not about YAML at
 * all to its author: `: `, `{`, `[`, `&` and a leading quote mean something
 * to YAML in a plain scalar. The hint names the key and the two ways out.
 */
const PLAIN_VALUE = /^[\t ]*(?:-[\t ]+)?([A-Za-z][A-Za-z0-9_]*):[\t ]+(?![|>'"\s])(.*)$/;
/** What JSONata writes and YAML reads otherwise in a plain value. */
const YAML_SYNTAX_IN_VALUE = /: |[?{}[\]&"'#]/;

export function expressionHint(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', Math.max(0, offset - 1)) + 1;
  const end = text.indexOf('\n', offset);
  const line = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
  const match = PLAIN_VALUE.exec(line);
  if (!match || !YAML_SYNTAX_IN_VALUE.test(match[2]!)) return '';
  const key = match[1]!;
  return ` (if ${key} is a JSONata expression, YAML read part of it as its own syntax: quote it, ${key}: '…' with each ' inside doubled, or write it as a block, ${key}: | with the expression on the next lines, indented)`;
}
