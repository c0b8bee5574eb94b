import { Transform, type TransformCallback } from 'node:stream';
import { REDACTED } from './provider-text.ts';
import { secretForms } from './redact.ts';
import { jsonStringForms } from './json-forms.ts';

/**
 * Every form the secret strings among `values` may take in an app's answer,
 * longest first: as a run's redaction has them (secretForms: of at least
 * MIN_REDACTED_LENGTH characters, as they are, percent-encoded, `+` for
 * spaces, and as a header written back in UTF-8 reads), and inside a JSON
 * string as encoders write them
 * (json-forms.ts: JSON.stringify's escapes, `\/`, and the characters Go and
 * Rails, Gson, .NET, PHP (with or without its JSON_HEX_* flags), Python and
 * Jackson escape as `\uXXXX`, in lower- and upper-case hex). An app that
 * echoes a credential back, in its body or a header, echoes one of these.
 * (The run path reads the JSON it maps, so any escape is seen there; the
 * proxy passes bytes on and knows these forms.)
 */
export function redactionForms(...values: unknown[]): string[] {
  const forms = new Set<string>();
  for (const value of secretForms(...values).plain) {
    forms.add(value);
    for (const form of jsonStringForms(value)) forms.add(form);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every one of `forms` (redactionForms) replaced by `[redacted]`: a header value of the app's answer, say. */
export function redactText(text: string, forms: readonly string[]): string {
  let safe = text;
  for (const form of forms) if (safe.includes(form)) safe = safe.split(form).join(REDACTED);
  return safe;
}

/** The bytes #undecidedFrom compares for one chunk before it holds back all it may (64 KiB: a few µs of memcmp). */
const UNDECIDED_BUDGET_BYTES = 64 * 1024;

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
  readonly #forms: Buffer[];
  readonly #longest: number;
  #held: Buffer = EMPTY;

  constructor(forms: readonly string[]) {
    this.#forms = [...new Set(forms)].filter((f) => f.length > 0).map((f) => Buffer.from(f, 'utf8'));
    this.#longest = this.#forms.reduce((max, f) => Math.max(max, f.length), 0);
  }

  /** Whether there is anything to look for. */
  get active(): boolean {
    return this.#forms.length > 0;
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
    const end = data.from(from);
    // Each comparison reads the rest of the end: with a long secret that the end almost begins at every byte (a
    // credential of 60,000 'a's, an answer of 'a's), ~120 ms a chunk. Past the budget, all of the end waits for the
    // next chunk, which is always safe (a secret cannot begin before it), just later.
    let budget = UNDECIDED_BUDGET_BYTES;
    for (let at = 0; at < end.length; at++) {
      const rest = end.length - at;
      for (const form of this.#forms) {
        if (form.length <= rest || form[0] !== end[at]) continue;
        if ((budget -= rest) < 0) return from;
        if (form.compare(end, at, end.length, 0, rest) === 0) return from + at;
      }
    }
    return data.length;
  }

  /** The byte ranges to redact: occurrences starting before `decided`, and any overlapping them, merged. */
  #ranges(data: Joined, decided: number): { start: number; end: number }[] {
    const found: { start: number; end: number }[] = [];
    const collect = (bytes: Buffer, offset: number) => {
      for (const form of this.#forms) {
        let run: { start: number; end: number } | null = null;
        for (let at = bytes.indexOf(form); at !== -1; at = bytes.indexOf(form, at + 1)) {
          // Overlapping occurrences of one form (a run of a repeating secret) grow one range, not a range each.
          if (run && at + offset < run.end) run.end = at + offset + form.length;
          else found.push((run = { start: at + offset, end: at + offset + form.length }));
        }
      }
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
