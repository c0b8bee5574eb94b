import type { EscapeSettings } from '../definitions/generated/definition-types.ts';

/** An escape, worked out once from its settings: what each special text is replaced by, longest first. */
interface CompiledEscape {
  /** Single code points and their replacements (the common case: one lookup per character). */
  readonly single: ReadonlyMap<string, string>;
  /** Longer `from`s (pairs only), longest first. */
  readonly longer: readonly (readonly [string, string])[];
}

const compiled = new WeakMap<EscapeSettings, CompiledEscape>();

/**
 * The replacements an escape makes, by the way its settings say:
 *
 *   { characters: "'", prefix: "'" }     O'Brien → O''Brien       (prefix before each)
 *   { style: Sql }                       O'Brien → O''Brien       (each quote doubled; characters default ')
 *   { style: Backslash }                 O'Brien \ Sons → O\'Brien \\ Sons   (characters default ' and ", and \ always)
 *   { pairs: [{ from: "\n", to: "\\n" }] } line breaks written \n
 *
 * Characters are code points: an emoji or a letter outside the BMP is one.
 */
export function compileEscape(escape: EscapeSettings): CompiledEscape {
  let found = compiled.get(escape);
  if (found) return found;
  const single = new Map<string, string>();
  const longer: [string, string][] = [];
  if (escape.pairs) {
    for (const { from, to } of escape.pairs) {
      if ([...from].length === 1) single.set(from, to);
      else longer.push([from, to]);
    }
    longer.sort((a, b) => b[0].length - a[0].length);
  } else if (escape.style === 'Sql') {
    for (const ch of escape.characters ?? "'") single.set(ch, ch + ch);
  } else if (escape.style === 'Backslash') {
    for (const ch of escape.characters ?? '\'"') single.set(ch, `\\${ch}`);
    single.set('\\', '\\\\');
  } else {
    for (const ch of escape.characters ?? '') single.set(ch, (escape.prefix ?? '') + ch);
  }
  compiled.set(escape, (found = { single, longer }));
  return found;
}

/** `text` escaped in one pass: what a replacement writes is never escaped again. */
export function escapeText(text: string, escape: EscapeSettings): string {
  const { single, longer } = compileEscape(escape);
  let out = '';
  let i = 0;
  outer: while (i < text.length) {
    for (const [from, to] of longer) {
      if (text.startsWith(from, i)) {
        out += to;
        i += from.length;
        continue outer;
      }
    }
    const code = text.codePointAt(i)!;
    const ch = String.fromCodePoint(code);
    out += single.get(ch) ?? ch;
    i += ch.length;
  }
  return out;
}

/**
 * What is wrong with an escape's settings, or null: exactly one way, each
 * with what it needs (ARG_ESCAPE_INVALID at load).
 */
export function escapeSettingsProblem(escape: EscapeSettings): string | null {
  const ways = [escape.prefix !== undefined && 'prefix', escape.style !== undefined && `style ${escape.style}`, escape.pairs !== undefined && 'pairs'].filter(Boolean);
  if (ways.length > 1) return `escape says ${ways.join(' and ')}: give one way, characters with prefix, a style, or pairs`;
  if (escape.pairs !== undefined && escape.characters !== undefined) return 'escape has pairs and characters: pairs say every replacement themselves';
  if (escape.prefix !== undefined && escape.characters === undefined) return 'escape has a prefix but no characters to write it before';
  if (ways.length === 0) return 'escape has characters but no prefix, style or pairs: say how they are escaped';
  return null;
}
