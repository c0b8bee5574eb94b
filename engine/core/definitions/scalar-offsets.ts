import type { Scalar } from 'yaml';

/**
 * Where, in the file, the character at `offset` of a YAML string value was
 * written. YAML changes strings between source and value (block indentation
 * is removed, quotes are unescaped, line breaks are folded), so an error
 * position inside a value (from the JSONata compiler) needs this walk back.
 *
 *   response: |            <- header; the value starts on the next line
 *     { "data": body.x, }  <- value offset 15 is the "}" at column 23 here
 */
export function sourceOffsetOf(text: string, scalar: Scalar, offset: number): number {
  const start = scalar.range?.[0] ?? 0;
  switch (scalar.type) {
    case 'BLOCK_LITERAL':
    case 'BLOCK_FOLDED':
      return blockOffset(text, start, scalar.range?.[1] ?? text.length, offset);
    case 'QUOTE_DOUBLE':
      return flowOffset(text, start + 1, offset, doubleQuotedStep);
    case 'QUOTE_SINGLE':
      return flowOffset(text, start + 1, offset, singleQuotedStep);
    default:
      return flowOffset(text, start, offset, () => 1);
  }
}

/** Block scalars: each content line loses the block's indentation; each line break is one character of the value. */
function blockOffset(text: string, start: number, end: number, offset: number): number {
  const headerEnd = text.indexOf('\n', start);
  if (headerEnd < 0) return start;
  const lines: { at: number; text: string }[] = [];
  let at = headerEnd + 1;
  while (at < end) {
    const next = text.indexOf('\n', at);
    const stop = next < 0 || next > end ? end : next;
    lines.push({ at, text: text.slice(at, stop) });
    at = stop + 1;
  }
  const indent = Math.min(...lines.filter((l) => l.text.trim()).map((l) => l.text.length - l.text.trimStart().length), Infinity);
  let consumed = 0;
  for (const line of lines) {
    const length = Math.max(0, line.text.length - (Number.isFinite(indent) ? indent : 0));
    if (offset <= consumed + length) return line.at + Math.min(indent, line.text.length) + (offset - consumed);
    consumed += length + 1;
  }
  const last = lines.at(-1);
  return last ? last.at + last.text.length : start;
}

/** How many source characters the value character at `i` took. */
type Step = (text: string, i: number) => number;

function doubleQuotedStep(text: string, i: number): number {
  if (text[i] !== '\\') return 1;
  const escape = text[i + 1];
  if (escape === 'x') return 4;
  if (escape === 'u') return 6;
  if (escape === 'U') return 10;
  return 2;
}

function singleQuotedStep(text: string, i: number): number {
  return text[i] === "'" && text[i + 1] === "'" ? 2 : 1;
}

/** Plain and quoted scalars: a line break and the next line's indentation fold into one space. */
function flowOffset(text: string, start: number, offset: number, step: Step): number {
  let i = start;
  for (let consumed = 0; consumed < offset && i < text.length; consumed++) {
    if (text[i] === '\n' || (text[i] === ' ' && /^ *\n/.test(text.slice(i)))) {
      i = text.indexOf('\n', i) + 1;
      while (text[i] === ' ' || text[i] === '\t') i++;
      continue;
    }
    i += step(text, i);
  }
  return i;
}
