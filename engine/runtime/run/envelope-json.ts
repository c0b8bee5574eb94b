import type { Envelope, EnvelopeMeta } from './envelope.ts';

/**
 * Below this many characters a body is serialised again: the pieces cost a
 * few µs more than one JSON.stringify of the whole envelope, which is less
 * than a short body's own serialisation (measured: 214 B slower by ~3 µs,
 * 1.8 KB faster by ~12 µs, 18 KB faster by ~150 µs).
 */
export const SPLICE_FROM_CHARS = 1024;

/**
 * On a response whose body is exactly what a JSON text parsed to: that body
 * and its text. A property of the response itself (not enumerable, so
 * neither a spread nor a mapping sees it), not a WeakMap: a WeakMap entry per
 * response is an ephemeron the GC must trace, measured as a share of the
 * run's GC time.
 */
const PARSED_FROM = Symbol('parsed from');
type Noted = { [PARSED_FROM]?: { body: unknown; text: string } };

/**
 * Notes that `response.body` is what `text`, the app's JSON, parsed to; the
 * envelope's serialisation then writes that text instead of serialising the
 * parsed value again (at 10 records, the raw response is about half the
 * envelope's bytes). Short texts are not kept (see SPLICE_FROM_CHARS).
 * Returns `response`.
 */
export function withJsonText<R extends EnvelopeMeta['response']>(response: R, text: string | undefined): R {
  if (text !== undefined && text.length >= SPLICE_FROM_CHARS) Object.defineProperty(response, PARSED_FROM, { value: { body: response.body, text } });
  return response;
}

/**
 * The envelope as JSON text: what JSON.stringify(envelope) gives, except that
 * `meta.response.body`, when it is still the value its JSON text parsed to,
 * is that text as received. The text is valid JSON (it parsed) and means the
 * same value, though its spacing, number spelling or escapes may be the app's
 * own (and a number beyond double precision keeps its digits).
 */
export function envelopeJson(envelope: Envelope): string {
  const { meta } = envelope;
  const parsed = (meta.response as Noted)[PARSED_FROM];
  // A meta with a toJSON of its own (no mapping writes one) is left to JSON.stringify, which would call it.
  if (!parsed || parsed.body !== meta.response.body || typeof meta.toJSON === 'function') return JSON.stringify(envelope);
  const responseJson = members(meta.response, (key, value) => (key === 'body' ? parsed.text : JSON.stringify(value)));
  const metaJson = members(meta, (key, value) => (key === 'response' ? responseJson : JSON.stringify(value)));
  return members(envelope, (key, value) => (key === 'meta' ? metaJson : JSON.stringify(value)));
}

/** An object as JSON.stringify writes it (members in order, undefined ones left out), each member's value written by `write`. */
function members(object: object, write: (key: string, value: unknown) => string | undefined): string {
  let json = '{';
  for (const key of Object.keys(object)) {
    const written = write(key, (object as Record<string, unknown>)[key]);
    if (written === undefined) continue;
    json += json.length === 1 ? `${JSON.stringify(key)}:${written}` : `,${JSON.stringify(key)}:${written}`;
  }
  return `${json}}`;
}
