import type { Filter } from '../port.ts';
import { likeMatcher } from '../like/like-pattern.ts';
import { replaceLike } from '../like/replace-like.ts';

/**
 * `$like` for NeDB: a `$where` running the store's own matcher (like-pattern.ts),
 * which cannot backtrack, in place of a regular expression, which NeDB would
 * run on the event loop and which backtracks without bound on patterns such
 * as `*a*a*a*a*b`.
 */
export function likeAsWhere(filter: Filter): Filter {
  return replaceLike(filter, (path, pattern) => {
    const matches = likeMatcher(pattern);
    const keys = path.split('.');
    return {
      $where(this: Record<string, unknown>) {
        return matches(ownValueAt(this, keys));
      },
    };
  });
}

/** The value at a dotted path through own properties only. */
function ownValueAt(record: unknown, keys: string[]): unknown {
  let value = record;
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
