import { isUtf8 } from 'node:buffer';
import type { Envelope, EnvelopeMeta } from './envelope.ts';
import { OWN_TURN_FROM_BYTES } from '../../platform/turns/index.ts';
import { deferredBodyOf, type DeferredJson } from '../../platform/outbound/index.ts';
import { rawRowsOf, rowCount } from './raw-rows.ts';

/**
 * Below this many characters a body is serialised again: the pieces cost a
 * few µs more than one JSON.stringify of the whole envelope, which is less
 * than a short body's own serialisation (measured: 214 B slower by ~3 µs,
 * 1.8 KB faster by ~12 µs, 18 KB faster by ~150 µs).
 */
export const SPLICE_FROM_CHARS = 1024;

/**
 * A short text that may hold a number a double does not give back as written (16 digits or more in a row: an id
 * past 2^53; an exponent of three digits: 1e400, 1e-400): spliced all the same, so meta.response.body keeps the
 * app's digits whatever its size (serialised again, 9007199254740993 came back as ...992, and 1e400 as null).
 */
const LOSSY_NUMBER = /\d{16}|[eE][+-]?\d{3}/;

/**
 * On a response whose body is exactly what a JSON text parsed to: that body,
 * its text, and the bytes the text was decoded from when they are that text
 * in UTF-8 (see withJsonText). A property of the response itself (not
 * enumerable, so neither a spread nor a mapping sees it), not a WeakMap: a
 * WeakMap entry per response is an ephemeron the GC must trace, measured as
 * a share of the run's GC time.
 */
const PARSED_FROM = Symbol('parsed from');
interface ParsedFrom {
  body: unknown;
  text: string;
  bytes: Buffer | undefined;
  /** The text not parsed yet (the body is its accessor, deferred-json.ts): `body` is unset. */
  deferred: DeferredJson | undefined;
}
type Noted = { [PARSED_FROM]?: ParsedFrom };

/**
 * Notes that `response.body` is what `text`, the app's JSON, parsed to; the
 * envelope's serialisation then writes that text instead of serialising the
 * parsed value again (at 10 records, the raw response is about half the
 * envelope's bytes). `bytes`, the body as received (decoded from its
 * content-coding), is spliced into the answer as it is when it is exactly
 * `text` in UTF-8: `utf8` says the text was decoded as UTF-8, and the bytes
 * must hold valid UTF-8 without a byte order mark (a decoder drops the mark
 * and replaces an invalid sequence, so the text would differ from them).
 * Short texts are not kept (see SPLICE_FROM_CHARS). Returns `response`.
 */
export function withJsonText<R extends EnvelopeMeta['response']>(response: R, text: string | undefined, received?: { bytes: Buffer; utf8: boolean }): R {
  const deferred = deferredBodyOf(response);
  if (deferred) return withDeferredText(response, deferred);
  if (text === undefined || (text.length < SPLICE_FROM_CHARS && !LOSSY_NUMBER.test(text))) return response;
  const bytes = received && received.utf8 && spliceable(received.bytes) ? received.bytes : undefined;
  const noted: ParsedFrom = { body: response.body, text, bytes, deferred: undefined };
  Object.defineProperty(response, PARSED_FROM, { value: noted });
  return response;
}

/** withJsonText for a body not parsed yet (deferred-json.ts): its bytes are the JSON text, in UTF-8; the text is decoded only if asked for. */
function withDeferredText<R extends EnvelopeMeta['response']>(response: R, deferred: DeferredJson): R {
  const noted = {
    body: undefined,
    get text() {
      return deferred.text;
    },
    bytes: spliceable(deferred.bytes) ? deferred.bytes : undefined,
    deferred,
  } satisfies ParsedFrom;
  Object.defineProperty(response, PARSED_FROM, { value: noted });
  return response;
}

/** Bytes that are exactly their text in UTF-8: valid UTF-8, no byte order mark (a decoder drops the mark and replaces an invalid sequence). */
function spliceable(bytes: Buffer): boolean {
  return !startsWithBom(bytes) && isUtf8(bytes);
}

/**
 * The JSON text `response.body` was parsed from, while the body is still that value and its text is kept
 * (SPLICE_FROM_CHARS and more): what envelopeBytes would write as the body. undefined otherwise.
 */
export function jsonTextOf(response: EnvelopeMeta['response']): string | undefined {
  const parsed = (response as Noted)[PARSED_FROM];
  return parsed && stillParsedFrom(response, parsed) ? parsed.text : undefined;
}

/**
 * The JSON text `response.body` was parsed from, as jsonTextOf, or for a body left unparsed its bytes when
 * they are that text in UTF-8 (it is not decoded for this). What a redaction searches: a string where there
 * is one (searching a Buffer encodes each secret's form first, ~10 µs a run at 100 records).
 */
export function jsonSourceOf(response: EnvelopeMeta['response']): string | Buffer | undefined {
  const parsed = (response as Noted)[PARSED_FROM];
  if (!parsed || !stillParsedFrom(response, parsed)) return undefined;
  return parsed.deferred ? (parsed.bytes ?? parsed.text) : parsed.text;
}

/**
 * Whether the response's body is still the value its noted text parsed to. A deferred text is asked whether
 * it is JSON (a worker that mapped it said so; else it is parsed here): only JSON is spliced.
 */
function stillParsedFrom(response: EnvelopeMeta['response'], parsed: ParsedFrom): boolean {
  if (parsed.deferred) return deferredBodyOf(response) === parsed.deferred && parsed.deferred.isJson();
  return parsed.body === response.body;
}

function startsWithBom(bytes: Buffer): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * The envelope as JSON text: what JSON.stringify(envelope) gives, except that
 * `meta.response.body`, when it is still the value its JSON text parsed to,
 * is that text as received. The text is valid JSON (it parsed) and means the
 * same value, though its spacing, number spelling or escapes may be the app's
 * own (and a number beyond double precision keeps its digits).
 */
export function envelopeJson(envelope: Envelope): string {
  const pieces = envelopePieces(envelope);
  if (!pieces) return JSON.stringify(envelope);
  let text = '';
  for (const piece of pieces) text += typeof piece === 'string' ? piece : piece.toString('utf8');
  return text;
}

/**
 * The envelope as the bytes of envelopeJson's text (UTF-8), written straight
 * from the app's bytes where it can: the JSON around the body (and around rows
 * a mapping worker wrote) is serialised and encoded, and their bytes copied in
 * between, never decoded to text and encoded again.
 */
export function envelopeBytes(envelope: Envelope): Buffer {
  const pieces = envelopePieces(envelope);
  if (!pieces) return Buffer.from(JSON.stringify(envelope));
  if (pieces.length === 1) return Buffer.from(pieces[0] as string);
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at, 'utf8') : piece.copy(out, at);
  return out;
}

/**
 * envelopeBytes in parts to be written one after another: with rows a mapping worker wrote (raw-rows.ts),
 * their bytes and the app's as they are, between the serialised rest, never copied into one buffer (3.4 MB
 * a run at 10,000 records, and as much memory outside V8's heap, whose growth sets off its full GCs); any
 * other envelope, envelopeBytes's one buffer.
 */
export function envelopeParts(envelope: Envelope): Buffer[] {
  if (!rawRowsOf(envelope)) return [envelopeBytes(envelope)];
  return envelopePieces(envelope)!.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
}

/** Text, or bytes of JSON text kept as they are. */
type Piece = string | Buffer;

/**
 * The envelope's JSON in pieces, when some of it is JSON text already: the
 * app's body where it is spliced (its bytes, or its text), rows a mapping
 * worker wrote (their bytes); undefined when none is, and JSON.stringify
 * writes it all.
 */
function envelopePieces(envelope: Envelope): Piece[] | undefined {
  const rows = rawRowsOf(envelope);
  const parsed = splicedBody(envelope);
  if (!rows && !parsed) return undefined;
  const holes: Record<string, readonly Piece[]> = {};
  if (rows) holes.data = [rows.bytes];
  if (parsed) {
    const { meta } = envelope;
    holes.meta = membersWith(meta, { response: membersWith(meta.response, { body: [parsed.bytes ?? parsed.text] }) });
  }
  return membersWith(envelope, holes);
}

/**
 * An object's JSON as JSON.stringify writes it (members in order, undefined
 * ones left out), in pieces: the value of each member named in `holes` is the
 * pieces given for it, every other member's JSON.stringify's. Adjacent text is
 * one piece: an object without bytes in its holes is one string.
 */
function membersWith(object: object, holes: Readonly<Record<string, readonly Piece[]>>): Piece[] {
  const pieces: Piece[] = [];
  let text = '{';
  let first = true;
  for (const key of Object.keys(object)) {
    const hole = Object.hasOwn(holes, key) ? holes[key] : undefined;
    const written = hole ? undefined : JSON.stringify((object as Record<string, unknown>)[key]);
    if (!hole && written === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!hole) {
      text += written;
      continue;
    }
    for (const piece of hole) {
      if (typeof piece === 'string') {
        text += piece;
        continue;
      }
      if (text !== '') pieces.push(text);
      pieces.push(piece);
      text = '';
    }
  }
  pieces.push(`${text}}`);
  return pieces;
}

/** Rows beyond this many make an envelope large whatever its response (see isLargeEnvelope). */
const LARGE_ROWS = 1000;

/**
 * Whether writing the envelope takes long enough to deserve a turn of the event loop of its own
 * (platform/turns): a response body of OWN_TURN_FROM_BYTES characters or more (the splice copies it, a
 * body without its JSON text is serialised again), or more than LARGE_ROWS rows of data.
 */
export function isLargeEnvelope(envelope: Envelope): boolean {
  return isLargeResponse(envelope.meta.response) || rowCount(envelope) > LARGE_ROWS;
}

/** Whether the response's body came from OWN_TURN_FROM_BYTES characters of text or more (its JSON text, or the text itself). */
export function isLargeResponse(response: EnvelopeMeta['response']): boolean {
  const deferred = deferredBodyOf(response);
  if (deferred) return deferred.bytes.length >= OWN_TURN_FROM_BYTES;
  const text = jsonTextOf(response) ?? (typeof response.body === 'string' ? response.body : undefined);
  return text !== undefined && text.length >= OWN_TURN_FROM_BYTES;
}

/** The note of a body still the value its text parsed to, when its envelope can be written around it. */
function splicedBody(envelope: Envelope): ParsedFrom | undefined {
  const { meta } = envelope;
  const parsed = (meta.response as Noted)[PARSED_FROM];
  // A meta with a toJSON of its own (no mapping writes one) is left to JSON.stringify, which would call it.
  if (!parsed || !stillParsedFrom(meta.response, parsed) || typeof meta.toJSON === 'function') return undefined;
  return parsed;
}

