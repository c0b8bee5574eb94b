import type { Filter } from '../port.ts';
import { caseVariants } from '../like/case-fold.ts';
import { likeSegments } from '../like/like-pattern.ts';
import { replaceLike } from '../like/replace-like.ts';

/**
 * `$like` for MongoDB: a `$regex` that cannot run away. Each literal piece
 * between wildcards is found at its first place after the one before with a
 * tempered token, `(?:(?!piece)[\s\S])*piece`: it consumes only characters
 * where the piece does not start, so giving one back never lets the piece
 * match there and backtracking stops at once. Cost: O(value length x
 * pattern length), like the embedded store's matcher.
 *
 *   *ab*c  ->  ^(?:(?![aA][bB])[\s\S])*[aA][bB][\s\S]*[cC](?![\s\S])
 *
 * Case-insensitivity is spelled out as a class of every character that folds
 * like the pattern's (case-fold.ts), not left to the server's `i` option, so
 * MongoDB and the embedded store agree on every character. The pattern uses
 * only syntax PCRE and JavaScript (`u` flag) read alike: no `.` (line
 * breaks), no `$` (PCRE's matches before a final line break), no `\z`.
 */
export function likeRegexSource(pattern: string): string {
  const pieces = likeSegments(pattern).map(literal);
  if (pieces.length === 1) return `^${pieces[0]}${END}`;
  const middle = pieces.slice(1, -1).filter((p) => p !== '').map((p) => `(?:(?!${p})${ANY})*${p}`);
  return `^${pieces[0]}${middle.join('')}${ANY}*${pieces[pieces.length - 1]}${END}`;
}

/** The filter with every `$like` as that `$regex`. */
export function likeAsRegex(filter: Filter): Filter {
  return replaceLike(filter, (path, pattern) => ({ [path]: { $regex: likeRegexSource(pattern) } }));
}

const ANY = '[\\s\\S]';
const END = `(?!${ANY})`;
// Escaped with a backslash: outside a class the syntax characters, inside one those that mean something there.
const OUTSIDE = new Set('^$\\.*+?()[]{}|/');
const INSIDE = new Set('\\]^-[');

function literal(piece: string): string {
  let out = '';
  for (const char of piece) {
    const variants = caseVariants(char);
    out += variants.length === 1 ? escape(char, OUTSIDE) : `[${variants.map((c) => escape(c, INSIDE)).join('')}]`;
  }
  return out;
}

function escape(char: string, special: Set<string>): string {
  if (special.has(char)) return `\\${char}`;
  const code = char.codePointAt(0)!;
  // Control characters as \xHH: a NUL byte cannot be sent in a pattern, and the rest are clearer so.
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return char;
}
