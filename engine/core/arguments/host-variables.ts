import type { FieldProblem } from '../../platform/errors/index.ts';
import { problem } from './rules.ts';
import { asText } from './send-values.ts';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const METADATA = 'metadata.';

/**
 * The text of every host variable: API and auth argument values by key, and
 * the end user's metadata fields as metadata.<field>.
 */
export function hostVariables(argumentValues: ReadonlyMap<string, unknown>, metadata: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, value] of argumentValues) if (value !== undefined && value !== null) variables[key] = asText(value);
  for (const [field, value] of Object.entries(metadata ?? {})) {
    if (value !== undefined && value !== null) variables[`${METADATA}${field}`] = asText(value);
  }
  return variables;
}

/**
 * Fills {{name}} placeholders of a header value (URLs: fillUrlTemplate, which encodes by URL part). A placeholder
 * without a value is a problem naming the variable and where it was needed,
 * so the connection (or the end user's metadata) can be completed.
 *
 *   fillTemplate('Bearer {{apiKey}}', { apiKey: 'k-1' }, 'header Authorization', problems, headerText)
 *     -> 'Bearer k-1'
 */
export function fillTemplate(
  template: string,
  variables: Readonly<Record<string, string>>,
  where: string,
  problems: FieldProblem[],
  encode: (text: string, offset: number) => string | null | { refused: string },
): string {
  return template.replace(PLACEHOLDER, (whole, name: string, offset: number) => {
    const field = name.startsWith(METADATA) ? name : `connection.${name}`;
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value === undefined) {
      const owner = name.startsWith(METADATA) ? "the end user's metadata does not have" : 'the connection does not set';
      addOnce(problems, problem(field, 'hostVariable', `${where} needs {{${name}}}, which ${owner}`));
      return whole;
    }
    // `offset`: where the placeholder starts in the template, for encoders that depend on the part it is in (URLs).
    const encoded = encode(value, offset);
    if (encoded === null || typeof encoded === 'object') {
      const why = encoded === null ? 'its value contains a line break or control character' : encoded.refused;
      addOnce(problems, problem(field, 'hostVariable', `${where} cannot use {{${name}}}: ${why}`));
      return whole;
    }
    return encoded;
  });
}

/** The variables a template's {{placeholders}} name, in order ('Bearer {{apiKey}}' -> ['apiKey']). */
export function placeholderNames(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/**
 * Header values may carry neither line breaks or other control characters (header injection: null) nor a
 * character beyond Latin-1 (U+00FF), which HTTP/1.1 cannot send (the client refuses the whole request). The
 * refusal never repeats the value: it may be a secret.
 */
export function headerText(text: string): string | null | { refused: string } {
  // Tab is allowed (legal in header values); CR, LF, NUL and the rest would end or corrupt the header.
  if (CONTROL_CHARACTER.test(text)) return null;
  return /[^\u0000-\u00ff]/.test(text) ? BEYOND_LATIN1 : text;
}

/** A control character other than tab (CR, LF, NUL ...): what no header, query or form value may hold as it is. */
export const CONTROL_CHARACTER = /[\u0000-\u0008\u000a-\u001f\u007f]/;

const BEYOND_LATIN1 = { refused: 'its value has a character beyond Latin-1 (U+00FF), which an HTTP header cannot carry: typographic quotes or a euro sign, say' };

/** One problem per variable: a value the connection lacks is reported once, however many templates use it. */
export function addOnce(problems: FieldProblem[], p: FieldProblem): void {
  if (!problems.some((q) => q.field === p.field)) problems.push(p);
}
