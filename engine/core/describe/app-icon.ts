import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The icon of an app: `icon.svg` beside its app.yaml (the loader ignores it, like README.md). */
export const ICON_FILE = 'icon.svg';

/** The largest icon file served; a bigger one (or one that is not a plain SVG) gives way to the monogram. */
export const MAX_ICON_BYTES = 32 * 1024;

export interface AppIcon {
  svg: string;
  /** file: the app folder's icon.svg; monogram: drawn from the app's name because it has none (or a bad one). */
  source: 'file' | 'monogram';
  /** A strong validator of the content. */
  etag: string;
}

/** "Acme CRM" → "AC", "slack" → "SL": up to two letters or digits from the name. */
export function initials(name: string): string {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const letters = words.length >= 2 ? [...words[0]!][0]! + [...words[1]!][0]! : [...(words[0] ?? '?')].slice(0, 2).join('');
  return letters.toUpperCase();
}

/** A muted colour from the name, stable across runs, so two monograms side by side differ. */
function colour(name: string): string {
  const hue = createHash('sha256').update(name).digest().readUInt16BE(0) % 360;
  return `hsl(${hue} 45% 38%)`;
}

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A plain monogram: the app's initials, white on a rounded square of a
 * colour derived from its name. For brands simple-icons does not have, and
 * for any app without an icon.svg.
 */
export function monogramSvg(name: string): string {
  const text = escapeXml(initials(name));
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" role="img">' +
    `<title>${escapeXml(name)}</title>` +
    `<rect width="24" height="24" rx="5" fill="${colour(name)}"/>` +
    `<text x="12" y="16.2" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="10" font-weight="600" fill="#fff" text-anchor="middle">${text}</text>` +
    '</svg>\n'
  );
}

/**
 * An SVG the gateway serves as an icon: an <svg> document with nothing
 * that runs or loads (no script, no event handler, no foreignObject, no
 * reference to another document). It is also served with a CSP that
 * forbids all of that; this check keeps a bad file from being served at all.
 */
export function isPlainSvg(text: string): boolean {
  if (!startsWithSvg(text)) return false;
  if (/<\s*(script|foreignObject|iframe|object|embed|image|use|style)\b/i.test(text)) return false;
  if (/\son[a-z]+\s*=/i.test(text)) return false;
  if (/(href|src)\s*=/i.test(text)) return false;
  return true;
}

/**
 * Whether the document starts with `<svg` after an optional XML declaration
 * and any comments, read in one pass with indexOf. (The expression it
 * replaces, `(<!--[\s\S]*?-->\s*)*<svg`, backtracked through every way of
 * pairing a file's comment ends: 26 empty comments took 300 ms, each one more
 * doubled it, and an icon may hold thousands.)
 */
function startsWithSvg(text: string): boolean {
  let at = skipSpace(text, 0);
  if (text.startsWith('<?xml', at)) {
    const end = text.indexOf('>', at);
    if (end < 0) return false;
    at = skipSpace(text, end + 1);
  }
  while (text.startsWith('<!--', at)) {
    const end = text.indexOf('-->', at + 4);
    if (end < 0) return false;
    at = skipSpace(text, end + 3);
  }
  return text.startsWith('<svg', at) && /[\s>]/.test(text.charAt(at + 4));
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

const etagOf = (svg: string) => `"${createHash('sha256').update(svg).digest('base64url').slice(0, 27)}"`;

/**
 * Reads app icons from a definitions folder, each file at most once per
 * change (its size and modification time), so a changed icon is served
 * after a hot reload without reading the file on every request.
 */
export class AppIcons {
  readonly #cache = new Map<string, { stamp: string; icon: AppIcon }>();
  readonly #monograms = new Map<string, AppIcon>();

  /** `appFolder`: the app's folder relative to `definitionsDir` (the first segment of its app.yaml path). */
  icon(definitionsDir: string, appFolder: string, name: string): AppIcon {
    const file = path.join(definitionsDir, appFolder, ICON_FILE);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > MAX_ICON_BYTES) return this.#monogram(name);
    const stamp = `${stat.size}:${stat.mtimeMs}`;
    const cached = this.#cache.get(file);
    if (cached?.stamp === stamp) return cached.icon;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return this.#monogram(name);
    }
    if (text.length > MAX_ICON_BYTES || !isPlainSvg(text)) return this.#monogram(name);
    const icon: AppIcon = { svg: text, source: 'file', etag: etagOf(text) };
    this.#cache.set(file, { stamp, icon });
    return icon;
  }

  #monogram(name: string): AppIcon {
    let icon = this.#monograms.get(name);
    if (!icon) {
      const svg = monogramSvg(name);
      icon = { svg, source: 'monogram', etag: etagOf(svg) };
      this.#monograms.set(name, icon);
    }
    return icon;
  }
}
