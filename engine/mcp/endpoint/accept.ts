/**
 * Whether an Accept header admits `mediaType` (`type/subtype`, lower case), as HTTP content negotiation reads it
 * (RFC 9110 section 12.5.1): the most specific range that matches it decides (`type/subtype`, then `type/*`, then
 * `*\/*`; the highest weight among ranges alike), and a weight of 0 refuses it. No header at all admits any type, as
 * the RFC says. Parameters other than the weight do not narrow a range here: the answer's type has none to match.
 * One pass over the header (whose size the HTTP server bounds), with no backtracking.
 */
export function admits(accept: string | null, mediaType: string): boolean {
  if (accept === null) return true;
  const [type] = mediaType.split('/');
  let best = -1;
  let weight = 0;
  for (const range of mediaRanges(accept)) {
    const specificity = range.name === mediaType ? 2 : range.name === `${type}/*` ? 1 : range.name === '*/*' ? 0 : -1;
    if (specificity < 0 || specificity < best) continue;
    weight = specificity > best ? range.q : Math.max(weight, range.q);
    best = specificity;
  }
  return best >= 0 && weight > 0;
}

interface MediaRange {
  /** `type/subtype`, `type/*` or `*\/*`, lower case. */
  name: string;
  /** The weight, 0 to 1 (1 when not given; see weightOf for one written out of the RFC's grammar). */
  q: number;
}

/** The ranges of an Accept header: split at commas outside quoted strings, each a name and its weight. */
function* mediaRanges(accept: string): Generator<MediaRange> {
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= accept.length; i++) {
    const c = accept[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && quoted) i++;
    else if (i === accept.length || (c === ',' && !quoted)) {
      const range = mediaRange(accept.slice(start, i));
      if (range) yield range;
      start = i + 1;
    }
  }
}

function mediaRange(text: string): MediaRange | null {
  const [name = '', ...parameters] = text.split(';');
  const trimmed = name.trim().toLowerCase();
  if (!/^[^/\s]+\/[^/\s]+$/.test(trimmed)) return null;
  let q = 1;
  for (const parameter of parameters) {
    const [key = '', value = ''] = parameter.split('=');
    if (key.trim().toLowerCase() !== 'q') continue;
    q = weightOf(value.trim());
    break;
  }
  return { name: trimmed, q };
}

/**
 * A qvalue is 0 to 1 with at most three decimals (RFC 9110 section 12.4.2). A number written otherwise is read as
 * the number it is, held to 0 to 1: `0.0000` and `-1` refuse as `0` does (read as 1 they admitted the very type the
 * client turned down), `1.0000` and `1e3` admit as `1` does. What is not a number (`NaN`, `0x0`, empty) is 1, as a
 * range without a weight.
 */
function weightOf(text: string): number {
  // Each part of the numeral has one way to match (the dot is literal), so a long run of digits is one pass.
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) return 1;
  return Math.min(1, Math.max(0, Number(text)));
}

/** What a request of the 2025 revisions is answered in: an event stream, or JSON (the transport may use either). */
const ANSWER_TYPES = ['application/json', 'text/event-stream'] as const;
const SPELLED_OUT = ANSWER_TYPES.join(', ');

/**
 * A request of the 2025 revisions as the SDK's transport is to see it: that transport looks for both type names in
 * the Accept header, literally, and answers 406 to `*\/*` or `application/*, text/*`, which admit both. When the
 * header admits both as HTTP reads it, the request goes on with them spelled out; when it does not, the 406 to answer.
 */
export function acceptSpelledOut(request: Request): Request | { notAcceptable: string } {
  const accept = request.headers.get('accept');
  const refused = ANSWER_TYPES.filter((type) => !admits(accept, type));
  if (refused.length > 0) {
    const said = accept === null ? '' : `; ${JSON.stringify(accept.length > 100 ? `${accept.slice(0, 100)}...` : accept)} admits ${refused.length === 2 ? 'neither' : `only ${ANSWER_TYPES.find((type) => !refused.includes(type))}`}`;
    return { notAcceptable: `Not Acceptable: the Accept header must admit both ${ANSWER_TYPES.join(' and ')} (send "${SPELLED_OUT}", or a range that covers them, such as */*)${said}` };
  }
  if (accept !== null && ANSWER_TYPES.every((type) => accept.includes(type)) && !/;\s*q=/i.test(accept)) return request;
  const headers = new Headers(request.headers);
  headers.set('accept', SPELLED_OUT);
  return new Request(request, { headers });
}
