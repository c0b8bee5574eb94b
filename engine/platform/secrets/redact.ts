import { REDACTED } from './provider-text.ts';
import { percentEncodedForms, utf8AsLatin1 } from './secret-values.ts';
import { jsonStringForms } from './json-forms.ts';

/**
 * Secret values shorter than this are not looked for in an app's response: a password of four digits or a
 * short word would match everywhere (numbers, ids, ordinary words), and replacing each match would destroy
 * the body rather than protect the credential. Credentials worth the name (API keys, tokens, client
 * secrets) are far longer. docs/outbound.md says so.
 */
export const MIN_REDACTED_LENGTH = 8;

/** The marker every occurrence of a secret becomes. */
export { REDACTED };

/**
 * What to look for: `plain`, each secret as it is and in the forms it travels in on a request (percent-encoded
 * as in a query or form, `+` for spaces), longest first so a secret holding another is replaced whole; and
 * `inJsonText`, those forms as they may be written inside a JSON string (escaped as JSON.stringify escapes
 * them, and with `\/` for `/`), for searching the raw text of a JSON body. A JSON text may also spell any
 * character as `\uXXXX`: bodiesMayHold answers "maybe" for such a text, never "no".
 */
export interface SecretForms {
  plain: readonly string[];
  inJsonText: readonly string[];
}

export const NO_SECRETS: SecretForms = Object.freeze({ plain: Object.freeze([]), inJsonText: Object.freeze([]) });

/**
 * The forms of every secret string among `values` (strings, and the string leaves of objects and arrays
 * such as a connection's opened credentials, at most 5 levels down) of at least MIN_REDACTED_LENGTH
 * characters.
 */
export function secretForms(...values: unknown[]): SecretForms {
  const plain = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (value.length < MIN_REDACTED_LENGTH) return;
      plain.add(value);
      for (const form of percentEncodedForms(value)) plain.add(form);
      // As a header value written back in UTF-8 reads (the app's headers are in meta.response).
      const read = utf8AsLatin1(value);
      if (read !== null) plain.add(read);
    } else if (value && typeof value === 'object' && depth < 5) {
      for (const member of Object.values(value)) visit(member, depth + 1);
    }
  };
  for (const value of values) visit(value, 0);
  if (plain.size === 0) return NO_SECRETS;
  const inJsonText = new Set<string>();
  for (const form of plain) for (const escaped of jsonStringForms(form)) inJsonText.add(escaped);
  const longestFirst = (set: Set<string>) => [...set].sort((a, b) => b.length - a.length);
  return { plain: longestFirst(plain), inJsonText: longestFirst(inJsonText) };
}

/**
 * `text` with every occurrence of every plain form replaced by the marker, and, in a text with a backslash,
 * every form as a JSON string writes it (`inJsonText`): a body labelled text/html may be JSON as PHP writes it,
 * `k3y\/AbC` (the same string when there is none).
 */
export function redactText(text: string, secrets: SecretForms): string {
  let out = text;
  for (const form of secrets.plain) if (out.includes(form)) out = out.split(form).join(REDACTED);
  if (!out.includes('\\')) return out;
  for (const form of secrets.inJsonText) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/** Whether `text` holds a form redactText would replace. */
function textHolds(text: string, secrets: SecretForms): boolean {
  if (secrets.plain.some((form) => text.includes(form))) return true;
  return text.includes('\\') && secrets.inJsonText.some((form) => text.includes(form));
}

/**
 * Whether the raw text (or bytes) of a JSON value may hold a secret in one of its strings: false only when
 * no form is in it as a JSON string writes it and no `\u` escape could spell one. Cheap: a few native
 * substring searches, no parse. A "maybe" is settled by redactJson on the parsed value.
 */
export function jsonTextMayHold(text: string | Buffer, secrets: SecretForms): boolean {
  if (secrets.inJsonText.length === 0) return false;
  if (text.includes('\\u')) return true;
  // A form with a `\u` escape cannot be in a text without one: only the others are searched.
  return secrets.inJsonText.some((form) => !form.includes('\\u') && text.includes(form));
}

/**
 * A JSON value (an app's parsed body, its headers, an error) with every secret in its strings, keys
 * included, replaced by the marker: the same value (===) when there is none; otherwise a copy, the value
 * itself untouched. Walked with a stack of its own, not recursion, so a body nested deeper than the call
 * stack costs no crash.
 */
export function redactJson<T>(value: T, secrets: SecretForms): T {
  if (secrets.plain.length === 0) return value;
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (!value || typeof value !== 'object' || !holds(value, secrets)) return value;
  const copy = (source: object): object => (Array.isArray(source) ? new Array(source.length) : {});
  const root = copy(value);
  const pending: [object, object][] = [[value, root]];
  const child = (member: unknown): unknown => {
    if (typeof member === 'string') return redactText(member, secrets);
    if (!member || typeof member !== 'object') return member;
    const target = copy(member);
    pending.push([member, target]);
    return target;
  };
  while (pending.length) {
    const [source, target] = pending.pop()!;
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) (target as unknown[])[i] = child(source[i]);
    } else {
      for (const key of Object.keys(source)) {
        // defineProperty: a key "__proto__" (JSON.parse makes it an own member) stays a member, never the prototype.
        Object.defineProperty(target, redactText(key, secrets), { value: child((source as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root as T;
}

/** Whether any string of a JSON value (keys included) holds a secret: what redactJson would change. */
export function jsonHolds(value: unknown, secrets: SecretForms): boolean {
  if (secrets.plain.length === 0) return false;
  if (typeof value === 'string') return textHolds(value, secrets);
  return !!value && typeof value === 'object' && holds(value, secrets);
}

/** Whether any string of `value` (keys included) holds a plain form; a stack, not recursion. */
function holds(value: object, secrets: SecretForms): boolean {
  const has = (text: string) => textHolds(text, secrets);
  const pending: object[] = [value];
  while (pending.length) {
    const node = pending.pop()!;
    const members: unknown[] = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node) && Object.keys(node).some(has)) return true;
    for (const member of members) {
      if (typeof member === 'string') {
        if (has(member)) return true;
      } else if (member && typeof member === 'object') {
        pending.push(member);
      }
    }
  }
  return false;
}

/**
 * Raw bytes (a body passed on as it came, not parsed) with every occurrence of a secret replaced by the
 * marker, in its plain forms and as written inside a JSON string: the same Buffer when there is none. A
 * secret spelled with `\u` escapes in a JSON text is not found here: parse such a body and use redactJson.
 */
export function redactBytes(bytes: Buffer, secrets: SecretForms): Buffer {
  const forms = [...new Set([...secrets.plain, ...secrets.inJsonText])].sort((a, b) => b.length - a.length);
  if (!forms.some((form) => bytes.includes(form))) return bytes;
  // latin1 maps each byte to one character and back: the replacement cannot split or alter a UTF-8 sequence
  // it does not match, and a form (encoded as UTF-8 bytes, read as latin1 too) matches exactly its bytes.
  let text = bytes.toString('latin1');
  for (const form of forms) {
    const bytesOfForm = Buffer.from(form, 'utf8').toString('latin1');
    if (text.includes(bytesOfForm)) text = text.split(bytesOfForm).join(REDACTED);
  }
  return Buffer.from(text, 'latin1');
}
