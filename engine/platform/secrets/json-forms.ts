/**
 * A secret as JSON encoders write it inside a string: JSON.stringify's escapes (quotes, backslashes, control
 * characters), then, for each common encoder, the characters it writes as `\uXXXX` (ENCODER_ESCAPES), in lower-
 * and upper-case hex, each with `/` as it is and as `\/` (PHP writes `\/` unless told not to, alongside its other
 * escapes: `a\/\u00e9` is its default for `a/é`). An app that echoes a credential back writes one of these.
 * Whole strings, each searched with a native substring search: linear in the text, whatever the secret (a
 * pattern matching each character in any of its escapes could backtrack, and a credential may be 64 KB).
 */
export function jsonStringForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = new Set<string>([json]);
  for (const escapes of ENCODER_ESCAPES) {
    forms.add(json.replace(escapes, unicodeEscape));
    forms.add(json.replace(escapes, upperUnicodeEscape));
  }
  for (const form of [...forms]) forms.add(form.replace(/\//g, '\\/'));
  return [...forms];
}

/**
 * The characters JSON encoders write as `\uXXXX` in a string (besides JSON.stringify's own escapes), one set
 * per encoder: Go and Rails (`<>&'`), Gson's default HTML-safe mode (`<>&='`), .NET's System.Text.Json
 * (`<>&'+`, a backquote, the quote, and everything beyond ASCII), PHP's JSON_HEX_TAG|AMP|APOS|QUOT (`<>&'`
 * and the quote, already `\"` in the JSON text: its escape is written over it) with and without its default
 * escape of everything beyond ASCII, and everything beyond ASCII alone (PHP's default, Python's json.dumps,
 * Jackson's ESCAPE_NON_ASCII).
 */
const ENCODER_ESCAPES = [/[<>&']/g, /[<>&=']/g, /[<>&'+`]|\\"|[^\x00-\x7f]/g, /[<>&']|\\"/g, /[<>&']|\\"|[^\x00-\x7f]/g, /[^\x00-\x7f]/g];

function unicodeEscape(char: string): string {
  return `\\u${codeOf(char).toString(16).padStart(4, '0')}`;
}

function upperUnicodeEscape(char: string): string {
  return `\\u${codeOf(char).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The character's code: an escaped quote (`\"`, as JSON.stringify wrote it) is the quote's. */
function codeOf(char: string): number {
  return char === '\\"' ? 0x22 : char.charCodeAt(0);
}
