import type { ListSettings, LookupList } from '../../definitions/generated/definition-types.ts';
import { accept, reject, type Checked } from '../coerce.ts';
import { shown } from '../rules.ts';
import type { ListOption } from '../types.ts';
import { isCountryCode } from './countries.ts';
import { isCurrencyCode } from './currencies.ts';

export interface ListCheckContext {
  /** The first page of a strict lookup's options, fetched at most once per list during one build. */
  lookup(list: LookupList): Promise<ListOption[]>;
  /** Defaults are the author's own values: they are not looked up. */
  fromDefault: boolean;
}

/**
 * A List value against its options. What is sent is the option's own value,
 * so "5" picks the option 5, and "de" is sent as DE. A Lookup is checked only
 * when it says strict: true; otherwise its value is sent as given.
 */
export async function checkListValue(list: ListSettings, value: string | number | boolean, ctx: ListCheckContext): Promise<Checked> {
  const known = checkListValueNow(list, value, ctx.fromDefault);
  if (known) return known;
  // strict: one extra call to the app per run, and only its first page counts.
  const options = await ctx.lookup(list as LookupList);
  const option = matchOption(options, value);
  if (option) return accept(option.value);
  return reject('lookup', `is not among the ${options.length} options on the first page of ${(list as LookupList).action} (strict lookup) (got ${shown(value)})`);
}

/**
 * The verdict on a List value that needs no lookup: every list but a strict
 * Lookup's (whose default is not looked up either). undefined: the value must
 * be looked up (checkListValue does).
 */
export function checkListValueNow(list: ListSettings, value: string | number | boolean, fromDefault: boolean): Checked | undefined {
  switch (list.type) {
    case 'Fixed': {
      const option = matchOption(list.options, value);
      if (option) return accept(option.value);
      return reject('option', `must be one of ${list.options.map((o) => shown(o.value)).join(', ')} (got ${shown(value)})`);
    }
    case 'Country': {
      const code = String(value).trim().toUpperCase();
      return isCountryCode(code) ? accept(code) : reject('country', `must be an ISO 3166-1 alpha-2 country code such as DE or US (got ${shown(value)})`);
    }
    case 'Currency': {
      const code = String(value).trim().toUpperCase();
      return isCurrencyCode(code) ? accept(code) : reject('currency', `must be an ISO 4217 currency code such as EUR or USD (got ${shown(value)})`);
    }
    case 'Lookup':
      // A Lookup fills the builder's dropdown; a run sends what it is given (real accounts have more than one page).
      return fromDefault || list.strict !== true ? accept(value) : undefined;
  }
}

function matchOption<T extends { value: string | number | boolean }>(options: readonly T[], value: string | number | boolean): T | undefined {
  return options.find((o) => o.value === value) ?? options.find((o) => String(o.value) === String(value));
}
