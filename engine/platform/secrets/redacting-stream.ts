import { Transform, type TransformCallback } from 'node:stream';
import { REDACTED } from './provider-text.ts';
import { secretValues } from './secret-values.ts';
import { couldBegin, replaceSpelled, spelledRanges, spellingsOf, type Alphabet, type Spellings } from './spellings.ts';

/**
 * What to look for in an app's answer: the secret strings among `values` as secretValues gives them (as
 * they are, percent-encoded, `+` for spaces), longest first. SecretRedactor and redactText find each in
 * every spelling a JSON string may give it (spellings.ts: any character as `\uXXXX`, `/` as `\/`, quotes and
 * backslashes escaped, in any mix), which is how Go and Rails, Gson, .NET, PHP (with or without its
 * JSON_HEX_* flags), Python and Jackson write a credential an app echoes back, in its body or a header.
 * (The run path reads the JSON it maps, so any escape is seen there; the proxy passes bytes on.)
 */
export function redactionForms(...values: unknown[]): string[] {
  return secretValues(...values);
}

/** Spellings by the forms they were made of: a proxied call of a connection asks for the same ones again. */
const remembered = new Map<string, Spellings | null>();
const REMEMBERED = 64;

function spellingsFor(forms: readonly string[], alphabet: Alphabet): Spellings | null {
  const key = `${alphabet}\0${forms.join('\0')}`;
  let found = remembered.get(key);
  if (found === undefined) {
    found = spellingsOf(forms, alphabet);
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, found);
  }
  return found;
}

/** `text` with every one of `forms` (redactionForms), in any spelling, replaced by `[redacted]`: a header value of the app's answer, say. */
export function redactText(text: string, forms: readonly string[]): string {
  const found = spellingsFor(forms, 'text');
  return found ? replaceSpelled(text, found, REDACTED) : text;
}

const MARKER = Buffer.from(REDACTED);
const EMPTY = Buffer.alloc(0);

/**
 * The redaction of a body that arrives in chunks, in bounded memory: every
 * byte range where one of `forms` occurs (overlapping occurrences merged)
 * becomes `[redacted]`, wherever the chunks were cut, even inside a secret.
 * What it was given is let out at once but for its end where that could
 * begin a secret (bytes a form starts with): those wait until the next
 * chunk (or the end) says whether a secret starts there. A chunk that ends
 * otherwise (an event of a stream, a line) goes out whole, and it holds at
 * most about twice the longest form, whatever the body's size.
 */
export class SecretRedactor {
  readonly #found: Spellings | null;
  readonly #longest: number;
  #held: Buffer = EMPTY;

  /** `forms`: redactionForms, each found in any of its spellings (spellings.ts). */
  constructor(forms: readonly string[]) {
    this.#found = spellingsFor(forms, 'bytes');
    this.#longest = this.#found?.longest ?? 0;
  }

  /** Whether there is anything to look for. */
  get active(): boolean {
    return this.#found !== null;
  }

  /** The next chunk in; what can be let out now (possibly nothing). Pieces are views of the chunk where they can be: a chunk is not copied. */
  write(chunk: Buffer): Buffer[] {
    if (!this.active) return [chunk];
    return this.#redact(new Joined(this.#held, chunk), false);
  }

  /** The body ended: what was held back, redacted. */
  end(): Buffer[] {
    const data = new Joined(this.#held, EMPTY);
    this.#held = EMPTY;
    return data.length === 0 ? [] : this.#redact(data, true);
  }

  #redact(data: Joined, final: boolean): Buffer[] {
    // An occurrence starting before `decided` lies whole in `data`; one starting after may go on in the next chunk.
    const decided = final ? data.length : this.#undecidedFrom(data);
    if (decided <= 0) {
      this.#held = data.copy(0);
      return [];
    }
    const ranges = this.#ranges(data, decided);
    let letOut = decided;
    const last = ranges.at(-1);
    if (last && last.end > letOut) letOut = last.end;
    // A range reaching past `decided` may be part of a longer overlap the next chunk completes: hold it back whole, within bounds.
    if (!final && last && last.end > decided && data.length - last.start <= 2 * this.#longest) {
      ranges.pop();
      letOut = last.start;
    }
    const out: Buffer[] = [];
    let at = 0;
    for (const range of ranges) {
      if (range.start > at) data.slice(at, range.start, out);
      out.push(MARKER);
      at = range.end;
    }
    if (letOut > at) data.slice(at, letOut, out);
    this.#held = letOut >= data.length ? EMPTY : data.copy(letOut);
    return out;
  }

  /**
   * Where the end of `data` that may begin a form starts (its bytes are the first bytes of a form, not all of it):
   * what must wait for the next chunk. `data.length` when no end of it could begin one.
   */
  #undecidedFrom(data: Joined): number {
    const from = Math.max(0, data.length - (this.#longest - 1));
    const end = data.from(from).toString('latin1');
    for (let at = 0; at < end.length; at++) if (couldBegin(end, at, this.#found!)) return from + at;
    return data.length;
  }

  /** The byte ranges to redact: occurrences starting before `decided`, and any overlapping them, merged. */
  #ranges(data: Joined, decided: number): { start: number; end: number }[] {
    const found: { start: number; end: number }[] = [];
    // Bytes read as latin1: one character a byte, so a range of the text is the same range of the bytes.
    const collect = (bytes: Buffer, offset: number) => {
      for (const range of spelledRanges(bytes.toString('latin1'), this.#found!, offset)) found.push(range);
    };
    // What was held, with the chunk's first bytes (any occurrence that starts in what was held ends there), then the chunk itself.
    if (data.head.length === 0) collect(data.tail, 0);
    else {
      collect(Buffer.concat([data.head, data.tail.subarray(0, 2 * this.#longest)]), 0);
      if (data.tail.length > 0) collect(data.tail, data.head.length);
    }
    if (found.length === 0) return found;
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: { start: number; end: number }[] = [];
    for (const range of found) {
      const last = merged.at(-1);
      if (last && range.start < last.end) last.end = Math.max(last.end, range.end);
      else if (range.start < decided) merged.push({ ...range });
    }
    return merged;
  }
}

/** The bytes held back followed by a new chunk, read as one without copying the chunk. */
class Joined {
  readonly length: number;
  constructor(
    readonly head: Buffer,
    readonly tail: Buffer,
  ) {
    this.length = head.length + tail.length;
  }

  /** The bytes from `start` to `end`, as views of the two parts, added to `out`. */
  slice(start: number, end: number, out: Buffer[]): void {
    const split = this.head.length;
    if (start < split) out.push(this.head.subarray(start, Math.min(end, split)));
    if (end > split) out.push(this.tail.subarray(Math.max(start, split) - split, end - split));
  }

  /** The bytes from `start` on: a view of the tail when they lie in it, a copy otherwise (`start` near the end: small). */
  from(start: number): Buffer {
    const split = this.head.length;
    return start >= split ? this.tail.subarray(start - split) : this.copy(start);
  }

  /** A copy of the bytes from `start` on (what is held back: small). */
  copy(start: number): Buffer {
    const pieces: Buffer[] = [];
    this.slice(start, this.length, pieces);
    return Buffer.concat(pieces);
  }
}

/** A Transform redacting `forms` (redactionForms) from the bytes that pass through it (SecretRedactor). */
export function redactingStream(forms: readonly string[]): Transform {
  const redactor = new SecretRedactor(forms);
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      for (const piece of redactor.write(chunk)) this.push(piece);
      done();
    },
    flush(done: TransformCallback) {
      for (const piece of redactor.end()) this.push(piece);
      done();
    },
  });
}
