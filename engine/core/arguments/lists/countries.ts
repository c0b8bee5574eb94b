import countries from 'i18n-iso-countries';
import type { ListOption } from '../types.ts';

/**
 * ISO 3166-1 alpha-2 codes from i18n-iso-countries (maintained against the
 * ISO list; it also carries XK, the user-assigned code for Kosovo that most
 * APIs accept). Labels are the platform's CLDR names via Intl.DisplayNames, so
 * no country name is typed by hand here.
 */
const CODES: ReadonlySet<string> = new Set(Object.keys(countries.getAlpha2Codes()));

export function isCountryCode(code: string): boolean {
  return CODES.has(code);
}

let cached: ListOption[] | undefined;

/** Every country as a dropdown option, sorted by its English name. */
export function countryOptions(): ListOption[] {
  if (!cached) {
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
    cached = [...CODES].map((code) => ({ value: code, label: names.of(code) ?? code })).sort((a, b) => a.label.localeCompare(b.label, 'en'));
  }
  return cached.map((o) => ({ ...o }));
}
