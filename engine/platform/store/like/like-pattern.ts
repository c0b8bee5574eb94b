import { foldCase } from './case-fold.ts';

/**
 * The store's `$like` operator, `{ field: { $like: 'acme*' } }`: `*` stands
 * for any characters (none included, line breaks included), everything else
 * is itself; the whole value must match (anchored at both ends), letters
 * compared without case (see case-fold.ts). Only strings match.
 *
 * The query layer limits a pattern's length and wildcards; the matcher costs
 * O(value length x pattern length) whatever they are.
 */
export const LIKE_WILDCARD = '*';

/** The literal pieces between wildcards, a run of `*` being one: `*ab**c` -> ['', 'ab', 'c']. */
export function likeSegments(pattern: string): string[] {
  return pattern.split(/\*+/);
}

/**
 * A test for one pattern, compiled once for a whole query. It cannot
 * backtrack: the first segment must be a prefix, the last a suffix, and each
 * one between is taken at its leftmost place after the one before (the
 * leftmost place leaves the most room for the rest, so if any placement
 * works, this one does).
 */
export function likeMatcher(pattern: string): (value: unknown) => boolean {
  const segments = likeSegments(pattern).map(foldCase);
  const first = segments[0]!;
  if (segments.length === 1) return (value) => typeof value === 'string' && foldCase(value) === first;
  const last = segments[segments.length - 1]!;
  const middle = segments.slice(1, -1).filter((s) => s !== '');
  const shortest = segments.reduce((sum, s) => sum + s.length, 0);
  return (value) => {
    if (typeof value !== 'string') return false;
    const text = foldCase(value);
    if (text.length < shortest || !text.startsWith(first) || !text.endsWith(last)) return false;
    const end = text.length - last.length;
    let at = first.length;
    for (const segment of middle) {
      const found = text.indexOf(segment, at);
      if (found < 0 || found + segment.length > end) return false;
      at = found + segment.length;
    }
    return true;
  };
}
