/**
 * @rsql/parser answers a tree without source positions. A problem found
 * after parsing (an unknown field, a value of the wrong type) must still say
 * where it is, so this walks the already-parsed source the way the parser's
 * lexer does and records, for each comparison in source order, where its
 * selector and value start and whether each value was quoted.
 *
 * It only runs on input the parser accepted, so it needs no error handling
 * of its own.
 */
export interface ComparisonLocation {
  /** 0-based offset of the selector. */
  selector: number;
  /** 0-based offset of each value (one, or each of a `=in=` list) and whether it was quoted. */
  values: { at: number; quoted: boolean }[];
}

const RESERVED = new Set(['"', "'", '(', ')', ';', ',', '=', '!', '~', '<', '>', ' ', '\n', '\t', '\r']);
const WHITESPACE = new Set([' ', '\n', '\t', '\r']);

export function locateComparisons(source: string): ComparisonLocation[] {
  const found: ComparisonLocation[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < source.length && WHITESPACE.has(source[i]!)) i++;
  };
  const readUnquoted = () => {
    const start = i;
    i++;
    while (i < source.length && !RESERVED.has(source[i]!)) i++;
    return source.slice(start, i);
  };
  const readValue = () => {
    const at = i;
    const quote = source[i];
    if (quote === '"' || quote === "'") {
      i++;
      while (i < source.length && source[i] !== quote) i += source[i] === '\\' ? 2 : 1;
      i++;
      return { at, quoted: true };
    }
    readUnquoted();
    return { at, quoted: false };
  };

  while (i < source.length) {
    skipSpace();
    const c = source[i];
    if (c === undefined) break;
    if (c === '(' || c === ')' || c === ';' || c === ',') {
      i++;
      continue;
    }
    const selectorAt = i;
    const word = readUnquoted();
    // Verbose logic operators stand where a selector could; the parser wants a space after them.
    if ((word === 'and' || word === 'or') && WHITESPACE.has(source[i] ?? '')) continue;
    skipSpace();
    // The operator: `==`, `!=`, `<`, `<=`, `>`, `>=` or `=name=`.
    if (source[i] === '=' && /^=[a-z]*=/i.test(source.slice(i))) i += /^=[a-z]*=/i.exec(source.slice(i))![0].length;
    else i += source[i + 1] === '=' ? 2 : 1;
    skipSpace();
    const values: ComparisonLocation['values'] = [];
    if (source[i] === '(') {
      i++;
      for (;;) {
        skipSpace();
        values.push(readValue());
        skipSpace();
        if (source[i] === ',') i++;
        else break;
      }
      i++;
    } else {
      values.push(readValue());
    }
    found.push({ selector: selectorAt, values });
  }
  return found;
}
