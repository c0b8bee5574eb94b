import { SUMMARY_PART } from './catalogue-page.ts';

/** Where each app's part of the page starts: the explicit anchor catalogue-page writes. */
const APP_ANCHOR = /^<a id="app-([^"]+)"><\/a>$/m;

/**
 * What is stale in a catalogue page on disk against the parts it should
 * have: one line per part that differs, is missing or should not be there,
 * in page order ([] when the page is current). `written` null: no page.
 */
export function staleParts(expected: { key: string; text: string }[], written: string | null): string[] {
  if (written === null) return ['the page does not exist'];
  const found = splitPage(written);
  const stale: string[] = [];
  for (const part of expected) {
    const was = found.get(part.key);
    const what = part.key === SUMMARY_PART ? 'the summary' : `app ${part.key}`;
    if (was === undefined) stale.push(`${what} is missing`);
    else if (was !== part.text) stale.push(`${what} differs`);
  }
  const keys = new Set(expected.map((part) => part.key));
  for (const key of found.keys()) if (!keys.has(key)) stale.push(`app ${key} is not in the definitions any more`);
  return stale;
}

/** The page cut at each app anchor: the summary first, then the apps by slug (separators as pageText joins them). */
function splitPage(text: string): Map<string, string> {
  const parts = new Map<string, string>();
  const chunks = text.split(/\n(?=<a id="app-[^"]+"><\/a>$)/m);
  for (const [i, chunk] of chunks.entries()) {
    const match = APP_ANCHOR.exec(chunk.split('\n', 1)[0]!);
    if (match && i > 0) parts.set(match[1]!, chunk);
    else if (i === 0) parts.set(match ? match[1]! : SUMMARY_PART, chunk);
  }
  return parts;
}
