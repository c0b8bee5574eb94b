import type { Argument } from '../definitions/generated/definition-types.ts';

/** How a Date argument is sent; `format`'s other values are a String's formats (string-formats.ts). */
export const DATE_FORMATS = ['ISO8601', 'Date', 'UnixSeconds', 'UnixMilliseconds', 'HttpDate'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number] & Argument['format'];

export function isDateFormat(format: Argument['format']): format is DateFormat {
  return (DATE_FORMATS as readonly string[]).includes(format ?? '');
}

// A calendar date, or a date-time with seconds optional, fractions optional and a zone required:
// a date-time without a zone would mean a different instant on every server.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2})))?$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * The instant an ISO 8601 string names, in milliseconds since the epoch, or
 * the reason it is not one. A calendar date alone is midnight UTC.
 *
 *   parseIsoDate('2024-05-01')                 -> 1714521600000
 *   parseIsoDate('2024-05-01T14:00:00+02:00')  -> 1714564800000
 */
export function parseIsoDate(text: string): { ms: number } | { reason: string } {
  const m = ISO_8601.exec(text);
  if (!m) {
    return LOCAL_TIME.test(text)
      ? { reason: 'needs a time zone (Z or +hh:mm), such as 2024-05-01T12:00:00Z' }
      : { reason: 'must be an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z' };
  }
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, fraction);
  const back = new Date(utc);
  // Date.UTC rolls 2024-02-30 over to March; a date that does not survive the round trip does not exist.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    return { reason: `is not a real date and time (${text})` };
  }
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return { reason: `has an impossible time zone offset (${text})` };
  return { ms: utc - offsetMinutes * 60_000 };
}

/**
 * How a Date argument is sent, by its `format` (ISO8601 when none):
 * ISO8601 2024-05-01T12:00:00Z (UTC, milliseconds only when there are some),
 * Date 2024-05-01 (the UTC calendar date), UnixSeconds 1714564800,
 * UnixMilliseconds 1714564800000, HttpDate Wed, 01 May 2024 12:00:00 GMT (RFC 9110
 * §5.6.7 IMF-fixdate: always GMT, whole seconds, the day of the month in two digits).
 */
export function formatDate(ms: number, format: DateFormat | undefined): string | number {
  switch (format) {
    case 'Date':
      return new Date(ms).toISOString().slice(0, 10);
    case 'UnixSeconds':
      return Math.floor(ms / 1000);
    case 'UnixMilliseconds':
      return ms;
    case 'HttpDate':
      return new Date(ms).toUTCString();
    default:
      return new Date(ms).toISOString().replace('.000Z', 'Z');
  }
}
