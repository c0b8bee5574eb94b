import type { ListSettings, LookupList } from '../../definitions/generated/definition-types.ts';
import { accept, reject, type Checked } from '../coerce.ts';
import { shown } from '../rules.ts';
import type { ListOption } from '../types.ts';
import { isCountryCode } from './countries.ts';
import { isCurrencyCode } from './currencies.ts';

export interface ListCheckContext {
  /** The lookup's options, fetched at most once per list during one build. */
  lookup(list: LookupList): Promise<ListOption[]>;
  /** Defaults are the author's own values: they are not looked up. */
  fromDefault: boolean;
}

/**
 * A List value against its options. What is sent is the option's own value,
 * so "5" picks the option 5, and "de" is sent as DE.
 */
export async function checkListValue(list: ListSettings, value: string | number | boolean, ctx: ListCheckContext): Promise<Checked> {
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
    case 'Lookup': {
      if (ctx.fromDefault) return accept(value);
      const options = await ctx.lookup(list);
      const option = matchOption(options, value);
      if (option) return accept(option.value);
      return reject('lookup', `must be one of the ${options.length} options that action ${list.action} returns (got ${shown(value)})`);
    }
  }
}

function matchOption<T extends { value: string | number | boolean }>(options: readonly T[], value: string | number | boolean): T | undefined {
  return options.find((o) => o.value === value) ?? options.find((o) => String(o.value) === String(value));
}
