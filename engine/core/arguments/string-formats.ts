import type { Argument } from '../definitions/generated/definition-types.ts';
import { parseIsoDate } from './dates.ts';

/** The formats a String argument's value can be held to; the other values of `format` are a Date's output formats. */
export const STRING_FORMATS = ['email', 'uri', 'date-time'] as const;
export type StringFormat = (typeof STRING_FORMATS)[number];

export function isStringFormat(format: Argument['format']): format is StringFormat {
  return (STRING_FORMATS as readonly string[]).includes(format ?? '');
}

/** What the value must look like, as a refusal says it. */
export const FORMAT_SHAPES: Record<StringFormat, string> = {
  email: 'an email address such as ada@example.com',
  uri: 'an absolute URI with a scheme, such as https://example.com/path',
  'date-time': 'an RFC 3339 date-time with a zone, such as 2024-05-01T12:00:00Z',
};

const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001F\u007F]/;
// RFC 3339 section 5.6: seconds and a zone are required, fractions optional; T (or t) separates.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Whether a string has the format. Each check is a single pass or an
 * anchored expression without nested repetition, so a long value costs
 * time linear in its length.
 *
 *   email      one @, a non-empty local part, a domain of non-empty labels with at least one dot, no spaces
 *   uri        an absolute URI: WHATWG URL parses it without a base (so it has a scheme), no spaces
 *   date-time  RFC 3339 (2024-05-01T12:00:00Z, 2024-05-01T14:00:00.5+02:00), a real date and time
 */
export function hasFormat(format: StringFormat, value: string): boolean {
  switch (format) {
    case 'email': {
      if (WHITESPACE_OR_CONTROL.test(value)) return false;
      const at = value.indexOf('@');
      if (at <= 0 || at !== value.lastIndexOf('@')) return false;
      const labels = value.slice(at + 1).split('.');
      return labels.length >= 2 && labels.every((label) => label.length > 0);
    }
    case 'uri':
      return !WHITESPACE_OR_CONTROL.test(value) && URL.canParse(value);
    case 'date-time':
      return RFC_3339.test(value) && 'ms' in parseIsoDate(value);
  }
}
