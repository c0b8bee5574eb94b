/**
 * How `$like` compares letters, the same on every adapter: each character
 * is folded to one character, the lower case of its upper case (JavaScript's
 * one-to-one case mappings, which give Unicode's simple case folding), so
 * `é` matches `É`, `ſ` and `S` match `s`, `K` (Kelvin) matches `k`, `ς` and
 * `Σ` match `σ`, `ẞ` matches `ß`. A character whose case mapping is longer
 * than one character keeps to itself (`ß` is not `ss`), and the Turkic
 * dotted and dotless i (`İ`, `ı`) are their own letters, as Unicode's
 * folding has them.
 *
 * The embedded store compares folded text; MongoDB gets, for each character
 * of the pattern, the class of every character that folds like it, so both
 * answer alike for every character.
 */

const TURKIC_I = new Set(['\u0130', '\u0131']);

/** One character (a code point) folded. */
export function foldChar(char: string): string {
  if (char.length === 1 && char.charCodeAt(0) < 0x80) return char.toLowerCase();
  if (TURKIC_I.has(char)) return char;
  const upper = char.toUpperCase();
  const base = isOneCodePoint(upper) ? upper : char;
  const lower = base.toLowerCase();
  return isOneCodePoint(lower) ? lower : base;
}

/** Text folded character by character: same number of code points, so positions keep their meaning. */
export function foldCase(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  let folded = '';
  for (const char of text) folded += foldChar(char);
  return folded;
}

let variantsOf: Map<string, string[]> | undefined;

/**
 * Every character that folds like `char`, `char` first: `k` -> [k, K, K].
 * The table covers every cased character (all below U+20000); it is built
 * once, on first use (~0.1 s).
 */
export function caseVariants(char: string): string[] {
  variantsOf ??= buildVariants();
  const folded = foldChar(char);
  const all = variantsOf.get(folded);
  return all ? [char, ...all.filter((c) => c !== char)] : [char];
}

function buildVariants(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    const folded = foldChar(char);
    if (folded === char) continue;
    const members = table.get(folded);
    if (members) members.push(char);
    else table.set(folded, [folded, char]);
  }
  return table;
}

function isOneCodePoint(text: string): boolean {
  const cp = text.codePointAt(0);
  return cp !== undefined && text.length === (cp > 0xffff ? 2 : 1);
}
