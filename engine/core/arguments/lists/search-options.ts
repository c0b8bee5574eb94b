import type { ListOption } from '../types.ts';

/**
 * How the options answer was searched: by the app (the lookup action's
 * searchArgument received the text), on the one page the gateway got, or
 * over all the options of a list the gateway holds (Fixed, Country, Currency).
 */
export type Searched = 'app' | 'page' | 'all';

/**
 * The options whose label or value contains `search`, ignoring case, in
 * their order: "de" finds { value: DE, label: Germany } and { label: Design }.
 */
export function filterOptions(options: readonly ListOption[], search: string): ListOption[] {
  const needle = search.toLowerCase();
  return options.filter((o) => o.label.toLowerCase().includes(needle) || String(o.value).toLowerCase().includes(needle));
}
