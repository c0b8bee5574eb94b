import { decodeUtf8 } from './parse-body.ts';

/**
 * A JSON body not decoded or parsed yet: its UTF-8 bytes, decoded and parsed
 * the first time its `body` (or its text) is read. A large response mapped in a worker thread (core/mapping/
 * workers) is never parsed on the main thread, where parsing 1.9 MB holds the
 * event loop 25-45 ms (decoding it another ~11) and its object graph makes
 * every young-generation GC copy it; whatever else reads the body (a cursor mapping, a redaction that
 * found a secret's text, a serialisation that cannot splice it) gets the parsed
 * value as before, parsed then.
 *
 * The object holding the body (the response, the facts and mapping input
 * made from it) gets `body` as an enumerable accessor: a spread or
 * JSON.stringify reads it (and parses), so it is copied with copyBody, not
 * spread, where the parse is to stay deferred. Assigning `body` replaces
 * the value.
 */
export class DeferredJson {
  /** What the text is known to be: not looked at yet, JSON (parsed into `value`, or said so by a worker), or not JSON. */
  private state: 'unknown' | 'json' | 'parsed' | 'text' = 'unknown';
  private value: unknown;
  private decoded: string | undefined;

  /** `bytes`: JSON in UTF-8 (a body as received, its content-coding undone; or rows a mapping worker wrote). */
  constructor(readonly bytes: Buffer) {}

  /** The body's text, decoded as parseBody decodes UTF-8 (here, at the first call). */
  get text(): string {
    return (this.decoded ??= decodeUtf8(this.bytes));
  }

  /** The body: the parsed JSON, or the text itself when it is not JSON (what parseBody gives for declared JSON that does not parse). */
  read(): unknown {
    if (this.state === 'parsed') return this.value;
    if (this.state === 'text') return this.text;
    try {
      this.value = JSON.parse(this.text);
      this.state = 'parsed';
      return this.value;
    } catch {
      this.state = 'text';
      return this.text;
    }
  }

  /** Whether the text is JSON (parsing it here when nobody has said). */
  isJson(): boolean {
    if (this.state === 'unknown') this.read();
    return this.state !== 'text';
  }

  /** Whether the body has been parsed on this thread. */
  get parsed(): boolean {
    return this.state === 'parsed';
  }

  /** What a worker that parsed the same text found: JSON or not (the value stays there). */
  learned(json: boolean): void {
    if (this.state === 'unknown') this.state = json ? 'json' : 'text';
  }
}

/** The DeferredJson behind each object's deferred members, by member name (a WeakMap: the accessor must stay a plain enumerable property). */
const behind = new Map<string, WeakMap<object, DeferredJson>>();

/** Gives `target` a member `key` that reads `deferred` (decoding and parsing it at the first read); returns target. Assigning the member replaces it with the value. */
export function deferMember<T extends object>(target: T, key: string, deferred: DeferredJson): T {
  let byTarget = behind.get(key);
  if (!byTarget) behind.set(key, (byTarget = new WeakMap()));
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => deferred.read(),
    set(value: unknown) {
      byTarget.delete(target);
      Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
    },
  });
  byTarget.set(target, deferred);
  return target;
}

/** The DeferredJson still behind `target[key]`: undefined when it is a plain value (or was replaced). */
export function deferredMemberOf(target: object, key: string): DeferredJson | undefined {
  return behind.get(key)?.get(target);
}

/** Gives `target` a `body` that reads `deferred` (see deferMember). */
export function deferBody<T extends object>(target: T, deferred: DeferredJson): T {
  return deferMember(target, 'body', deferred);
}

/** The DeferredJson still behind `target.body`. */
export function deferredBodyOf(target: object): DeferredJson | undefined {
  return deferredMemberOf(target, 'body');
}

/** Sets `to.body` to `from.body` without reading a deferred one (it stays deferred, behind both). */
export function copyBody<T extends object>(from: { body: unknown }, to: T): T {
  const deferred = deferredBodyOf(from);
  if (deferred) return deferBody(to, deferred);
  (to as { body?: unknown }).body = from.body;
  return to;
}
