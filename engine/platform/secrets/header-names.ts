import { REDACTED } from './provider-text.ts';

/** Each form lower-cased, by the list it came in (a run's forms are remembered per connection: so are these). */
const loweredLists = new WeakMap<readonly string[], readonly string[]>();

function lowered(forms: readonly string[]): readonly string[] {
  let lower = loweredLists.get(forms);
  if (!lower) loweredLists.set(forms, (lower = [...new Set(forms.map((form) => form.toLowerCase()))].sort((a, b) => b.length - a.length)));
  return lower;
}

/**
 * An app's header name with every one of `forms` (a secret's forms, as redaction looks for them) in it, in any
 * letter case, replaced by the marker; `null` when it holds none. In any letter case: header names are
 * case-insensitive, and the HTTP client reads them lower-cased, so a credential with capitals that an app
 * writes into a name (`X-Echo-<key>: 1`, echoing its request) arrives lower-cased, which a search of the
 * secret as it is never finds, and which gives away all but the key's letter case.
 */
export function redactedHeaderName(name: string, forms: readonly string[]): string | null {
  if (forms.length === 0) return null;
  const lower = name.toLowerCase();
  let safe = lower;
  for (const form of lowered(forms)) if (safe.includes(form)) safe = safe.split(form).join(REDACTED);
  return safe === lower ? null : safe;
}

/**
 * `headers` with each name that holds a secret (redactedHeaderName) written with the marker in its place, the
 * value kept: the same object (===) when no name holds one. Two names that redact to one are joined with ", ",
 * as HTTP joins a header sent twice.
 */
export function redactHeaderNames<T>(headers: Readonly<Record<string, T>>, forms: readonly string[]): Record<string, T | string> {
  if (!Object.keys(headers).some((name) => redactedHeaderName(name, forms) !== null)) return headers;
  const out: Record<string, T | string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const safe = redactedHeaderName(name, forms) ?? name;
    const before = Object.prototype.hasOwnProperty.call(out, safe) ? out[safe] : undefined;
    // defineProperty: a name "__proto__" stays a member, never the prototype.
    Object.defineProperty(out, safe, { value: before === undefined ? value : `${String(before)}, ${String(value)}`, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
