/**
 * Every way a text may spell a secret: each of its characters as itself or as a JSON string escapes it
 * (`\uXXXX` in lower- or upper-case hex, a surrogate pair as two such escapes, and the short escapes `\/`,
 * `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), character by character, so any mix of styles is one spelling:
 * PHP's `json_encode` writes `/` as `\/` and, with its JSON_HEX_* flags, `<&'"` as `\u00XX` in one string;
 * .NET escapes `+` and everything beyond ASCII; a body labelled text/html may carry such JSON as text. A
 * list of encoders' forms misses the mixes (a secret holding `/` and `é` written by PHP's defaults); a
 * spelling per character does not.
 *
 * Two alphabets: `text` (a JavaScript string: an envelope's strings, a header value) and `bytes` (UTF-8
 * bytes read as latin1, one character a byte: the proxy's stream), where a character beyond ASCII is
 * itself as its UTF-8 bytes.
 */
export type Alphabet = 'text' | 'bytes';

/** One secret as a pattern: for each of its characters, the strings that may stand for it. */
export type Spelling = readonly (readonly string[])[];

/** The secrets' spellings, one pattern finding any of them, and the longest any of them can be. */
export interface Spellings {
  readonly spellings: readonly Spelling[];
  /** Global: every spelling of every secret. */
  readonly pattern: RegExp;
  /** The most characters (bytes, in the bytes alphabet) one spelling can take. */
  readonly longest: number;
  /** The characters a spelling can begin with: a quick test before couldBegin. */
  readonly firsts: ReadonlySet<string>;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The spellings of `secrets` (none empty) in `alphabet`; null when there is none. */
export function spellingsOf(secrets: readonly string[], alphabet: Alphabet): Spellings | null {
  const unique = [...new Set(secrets)].filter((secret) => secret.length > 0);
  if (unique.length === 0) return null;
  // Longest first: where two secrets start at one place, the longer is found.
  const spellings = unique.sort((a, b) => b.length - a.length).flatMap((secret) => spell(secret, alphabet));
  const source = spellings.map((spelling) => spelling.map((ways) => `(?:${ways.map(escapeRegExp).join('|')})`).join('')).join('|');
  const longest = Math.max(...spellings.map((spelling) => spelling.reduce((sum, ways) => sum + Math.max(...ways.map((way) => way.length)), 0)));
  const firsts = new Set(spellings.flatMap((spelling) => spelling[0]!.map((way) => way[0]!)));
  return { spellings, pattern: new RegExp(source, 'g'), longest, firsts };
}

/**
 * The ways of one character are prefix-free (none begins another: a character other than the backslash is
 * itself, or an escape beginning with a backslash, and the escapes differ by their second character or their
 * hex), so matching a spelling never backtracks within it: linear in the text, whatever the secret. A
 * backslash would break that (itself, and the first half of `\\`): a secret holding one has two spellings
 * instead, as raw text has it (every character itself) and as JSON must write it (each backslash escaped, the
 * rest in any way), which are also the only two ways it can be written (in a JSON string a bare backslash
 * always begins an escape).
 */
function spell(secret: string, alphabet: Alphabet): Spelling[] {
  const literal = (char: string) => (alphabet === 'bytes' ? Buffer.from(char, 'utf8').toString('latin1') : char);
  const units: string[][] = [];
  for (const char of secret) {
    const ways = new Set<string>(char === '\\' ? [] : [literal(char)]);
    const short = SHORT_ESCAPES[char];
    if (short) ways.add(short);
    ways.add(unicodeEscapes(char, false));
    ways.add(unicodeEscapes(char, true));
    units.push([...ways]);
  }
  if (!secret.includes('\\')) return [units];
  return [[...secret].map((char) => [literal(char)]), units];
}

/** `\uXXXX` for each UTF-16 unit of `char` (two for a character beyond the BMP). */
function unicodeEscapes(char: string, upper: boolean): string {
  let out = '';
  for (let i = 0; i < char.length; i++) {
    const hex = char.charCodeAt(i).toString(16).padStart(4, '0');
    out += `\\u${upper ? hex.toUpperCase() : hex}`;
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The ranges of `text` where a spelling occurs, overlapping occurrences merged into one (two secrets that
 * overlap, a run of a secret that overlaps itself): every occurrence, not only those a left-to-right scan
 * would keep, so no tail of a secret is left beside a marker.
 */
export function spelledRanges(text: string, found: Spellings, offset = 0): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  const pattern = found.pattern;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index + offset;
    const end = start + match[0].length;
    const last = ranges.at(-1);
    if (last && start < last.end) last.end = Math.max(last.end, end);
    else ranges.push({ start, end });
    // The next occurrence may start inside this one.
    pattern.lastIndex = match.index + 1;
  }
  return ranges;
}

/** `text` with every spelling replaced by `marker` (the same string when there is none). */
export function replaceSpelled(text: string, found: Spellings, marker: string): string {
  const ranges = spelledRanges(text, found);
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const range of ranges) {
    out += text.slice(at, range.start) + marker;
    at = range.end;
  }
  return out + text.slice(at);
}

/** Whether `text` from `at` to its end is the beginning of a spelling, not all of one: what the next chunk decides. */
export function couldBegin(text: string, at: number, found: Spellings): boolean {
  if (!found.firsts.has(text[at]!)) return false;
  const goesOn = (spelling: Spelling, position: number, unit: number): boolean => {
    if (position === text.length) return unit < spelling.length;
    if (unit === spelling.length) return false;
    for (const way of spelling[unit]!) {
      const rest = text.length - position;
      if (rest < way.length) {
        if (way.startsWith(text.slice(position))) return true;
      } else if (text.startsWith(way, position) && goesOn(spelling, position + way.length, unit + 1)) {
        return true;
      }
    }
    return false;
  };
  return found.spellings.some((spelling) => goesOn(spelling, at, 0));
}
