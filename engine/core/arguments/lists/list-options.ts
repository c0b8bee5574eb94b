import type { ListSettings, LookupList } from '../../definitions/generated/definition-types.ts';
import { readPath } from '../json-path.ts';
import type { ListOption } from '../types.ts';
import { countryOptions } from './countries.ts';
import { currencyOptions } from './currencies.ts';

/**
 * The options of a list that the gateway knows without asking anyone:
 * Fixed (as written; the label defaults to the value), Country and Currency.
 * Lookup lists answer null: their options come from running an action.
 */
export function builtInOptions(list: ListSettings): ListOption[] | null {
  switch (list.type) {
    case 'Fixed':
      return list.options.map((o) => ({ value: o.value, label: o.label ?? String(o.value) }));
    case 'Country':
      return countryOptions();
    case 'Currency':
      return currencyOptions();
    case 'Lookup':
      return null;
  }
}

/**
 * A lookup action's result rows as options: valueKey and labelKey are paths
 * into each row (id, owner.login). Rows without a usable value are left out,
 * a missing label falls back to the value, and the first row wins when two
 * share a value.
 *
 *   list: { type: Lookup, action: list-lists, valueKey: id, labelKey: name }
 *   rows [{ id: 7, name: 'Newsletter' }] -> [{ value: 7, label: 'Newsletter' }]
 */
export function optionsFromRows(rows: readonly unknown[], list: LookupList): ListOption[] {
  const options: ListOption[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const value = readPath(row, list.valueKey);
    if (typeof value !== 'string' && typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) continue;
    if (seen.has(String(value))) continue;
    seen.add(String(value));
    const label = readPath(row, list.labelKey);
    options.push({ value, label: typeof label === 'string' || typeof label === 'number' || typeof label === 'boolean' ? String(label) : String(value) });
  }
  return options;
}
