import type { Filter } from '../port.ts';

/**
 * Rewrites every `{ field: { $like: pattern } }` of a filter into what one
 * adapter runs, given by `condition`, through `$and`, `$or` and `$nor`. Other
 * operators on the same field stay; values (dates, lists) are kept as they are.
 */
export function replaceLike(filter: Filter, condition: (path: string, pattern: string) => Filter): Filter {
  const kept: Filter = {};
  const added: Filter[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      kept[key] = value.map((f: Filter) => replaceLike(f, condition));
    } else if (isLike(value)) {
      const { $like, ...others } = value;
      added.push(condition(key, $like));
      if (Object.keys(others).length) kept[key] = others;
    } else {
      kept[key] = value;
    }
  }
  if (!added.length) return kept;
  const all = Object.keys(kept).length ? [kept, ...added] : added;
  return all.length === 1 ? all[0]! : { $and: all };
}

function isLike(value: unknown): value is { $like: string } & Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && Object.hasOwn(value, '$like') && typeof (value as { $like: unknown }).$like === 'string';
}
