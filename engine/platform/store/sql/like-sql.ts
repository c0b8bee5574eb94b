import { sql, type RawBuilder } from 'kysely';
import { foldCase, foldChar } from '../like/case-fold.ts';
import { likeSegments } from '../like/like-pattern.ts';

/**
 * `$like` in SQL: the pattern's `*` becomes LIKE's `%`, and every `%`, `_`
 * and `\` of the pattern is escaped, so nothing a client writes is a
 * wildcard but `*`. PostgreSQL's LIKE gives up on a `%` as soon as the rest
 * cannot match anywhere after it, so a value costs at most its length times
 * the pattern's (the query layer bounds both), never a backtracking blow-up.
 *
 * Letters compare as case-fold.ts folds them on every adapter. The column is
 * lowered by ICU's root locale (whatever the database's own locale); the few
 * characters whose lower case is not their fold (ſ -> s, ς -> σ, ϐ -> β, …)
 * are translated to their fold first, and İ, whose lower case is two
 * characters while its fold keeps it, to a private-use character on both
 * sides. The pattern is folded in JavaScript by the same rule. Both are
 * parameters.
 */
export function likeSql(column: RawBuilder<unknown>, pattern: string): RawBuilder<boolean> {
  const { from, to } = translation();
  const like = likeSegments(protect(foldCase(pattern)))
    .map((segment) => segment.replace(/[\\%_]/g, (c) => `\\${c}`))
    .join('%');
  return sql<boolean>`lower(translate(${column}, ${from}, ${to}) COLLATE "und-x-icu") LIKE ${like}`;
}

const DOTTED_I = '\u0130';
const STAND_IN = '\ue000';

function protect(folded: string): string {
  return folded.replaceAll(DOTTED_I, STAND_IN);
}

let table: { from: string; to: string } | undefined;

/** The characters whose JavaScript lower case is not their fold, each with its fold (built once, on first use). */
function translation(): { from: string; to: string } {
  if (table) return table;
  let from = DOTTED_I;
  let to = STAND_IN;
  for (let cp = 0x80; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    if (char === DOTTED_I) continue;
    const folded = foldChar(char);
    if (char.toLowerCase() !== folded) {
      from += char;
      to += folded;
    }
  }
  table = { from, to };
  return table;
}
