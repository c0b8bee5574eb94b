import type { ListOption } from '../types.ts';

/**
 * ISO 4217 codes as the platform's ICU data knows them
 * (Intl.supportedValuesOf('currency')), labelled with Intl.DisplayNames: the
 * list moves with Node's ICU updates instead of a table typed here.
 */
const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(code: string): boolean {
  return CODES.has(code);
}

let cached: ListOption[] | undefined;

/** Every currency as a dropdown option, in code order. */
export function currencyOptions(): ListOption[] {
  if (!cached) {
    const names = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'code' });
    cached = [...CODES].sort().map((code) => ({ value: code, label: names.of(code) ?? code }));
  }
  return cached.map((o) => ({ ...o }));
}
