import type { FieldType } from './field-table.ts';

/** A value of `where` turned into what the store compares, or the reason it cannot be. */
export type TypedValue = { ok: true; value: unknown } | { ok: false; reason: string };

const INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?\d{1,15}(\.\d{1,15})?([eE][+-]?\d{1,3})?$/;
// RFC 3339: a full date (midnight UTC), or a date-time with seconds optional and a zone required.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/i;

/**
 * `null` (unquoted) is null on a nullable field; otherwise the text is read
 * as the field's type. Strings are taken as written, quoted or not.
 */
export function typedValue(raw: string, quoted: boolean, type: FieldType, nullable: boolean): TypedValue {
  if (!quoted && raw === 'null') {
    return nullable || type === 'object' ? { ok: true, value: null } : { ok: false, reason: 'cannot be null' };
  }
  switch (type) {
    case 'string':
      return { ok: true, value: raw };
    case 'integer':
      return INTEGER.test(raw) ? { ok: true, value: Number(raw) } : { ok: false, reason: `must be an integer (got "${clip(raw)}")` };
    case 'number':
      return NUMBER.test(raw) && Number.isFinite(Number(raw)) ? { ok: true, value: Number(raw) } : { ok: false, reason: `must be a number (got "${clip(raw)}")` };
    case 'boolean':
      return raw === 'true' || raw === 'false' ? { ok: true, value: raw === 'true' } : { ok: false, reason: `must be true or false (got "${clip(raw)}")` };
    case 'date-time': {
      const date = parseDateTime(raw);
      return date ? { ok: true, value: date } : { ok: false, reason: `must be an ISO 8601 date or date-time with a zone, e.g. 2026-01-31 or 2026-01-31T12:00:00Z (got "${clip(raw)}")` };
    }
    case 'object':
      return { ok: true, value: raw };
  }
}

/**
 * A key of an object field holds any JSON, so `settings.beta==true` matches
 * the boolean true and the string "true": the candidates a text can stand for.
 */
export function looseCandidates(raw: string, quoted: boolean): unknown[] {
  if (quoted) return [raw];
  const candidates: unknown[] = [raw];
  if (NUMBER.test(raw)) candidates.push(Number(raw));
  if (raw === 'true' || raw === 'false') candidates.push(raw === 'true');
  if (raw === 'null') return [null];
  return candidates;
}

export function parseDateTime(raw: string): Date | null {
  const m = DATE_TIME.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m;
  const date = new Date(m[4] === undefined ? `${raw}T00:00:00Z` : raw.toUpperCase());
  if (Number.isNaN(date.getTime())) return null;
  // Reject dates Date would roll over (2026-02-30 becomes March 2).
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  const sameFields =
    check.getUTCFullYear() === Number(y) && check.getUTCMonth() === Number(mo) - 1 && check.getUTCDate() === Number(d) &&
    check.getUTCHours() === Number(h) && check.getUTCMinutes() === Number(mi) && check.getUTCSeconds() === Number(s);
  return sameFields ? date : null;
}

export function clip(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
