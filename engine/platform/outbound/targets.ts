import { EgressDeniedError } from '../egress/egress-denied.ts';
import type { QueryValue } from './encode.ts';

/** How many URL texts a client remembers parsed before it starts over. */
const REMEMBERED_URLS = 1_000;
/**
 * Only URLs up to this long are remembered: a caller's argument placed in
 * the query can make a URL as long as the request body allows, and 1,000 of
 * those would hold gigabytes. Longer ones are parsed on every call, as all
 * were before.
 */
export const REMEMBERED_URL_CHARS = 2_048;

/** One URL text, parsed: the URL, and what a query is appended to. */
interface Parsed {
  url: URL;
  /** The href up to its query and fragment, with the `?` a query follows. */
  beforeQuery: string;
  /** The query the URL has, written as URLSearchParams writes it ('' when none). */
  query: string;
  hash: string;
}

/**
 * The URL of each call, parsed once per URL text: an action's base URL and
 * path rarely change from run to run, and `new URL` (twice, with the query
 * appended through searchParams) was paid on every call. The URL made for
 * a call's query parameters is remembered by its text too. The same text
 * gives the same URL as before: the query the URL has is rewritten as
 * URLSearchParams writes it when parameters are added (and left as written
 * when none is), arrays repeat the key, null and undefined are left out,
 * and the fragment stays last. The URLs answered are shared: nothing may
 * change them (a redirect makes a URL of its own).
 */
export interface UrlTargets {
  /** The absolute URL of `text` with `query` appended; EgressDeniedError when it is not a valid absolute URL. */
  of(text: string, query: Record<string, QueryValue> | undefined): URL;
  /** The characters of the URL texts remembered now. */
  rememberedChars(): number;
}

export function createUrlTargets(): UrlTargets {
  const parsed = new Map<string, Parsed>();
  let chars = 0;

  const parse = (text: string): Parsed => {
    let entry = parsed.get(text);
    if (entry === undefined) {
      const url = absoluteUrl(text);
      const href = url.href;
      const end = href.search(/[?#]/);
      entry = { url, beforeQuery: `${end === -1 ? href : href.slice(0, end)}?`, query: url.search ? new URLSearchParams(url.search).toString() : '', hash: url.hash };
      if (text.length <= REMEMBERED_URL_CHARS) {
        if (parsed.size >= REMEMBERED_URLS) {
          parsed.clear();
          chars = 0;
        }
        parsed.set(text, entry);
        chars += text.length;
      }
    }
    return entry;
  };

  return {
    rememberedChars: () => chars,
    of(text, query) {
      const base = parse(text);
      if (query === undefined) return base.url;
      let added = '';
      for (const key in query) {
        const value = query[key];
        if (value === null || value === undefined) continue;
        if (Array.isArray(value)) {
          for (const item of value) added += `&${formPair(key, item)}`;
        } else {
          added += `&${formPair(key, value)}`;
        }
      }
      if (added === '') return base.url;
      const search = base.query === '' ? added.slice(1) : base.query + added;
      return parse(`${base.beforeQuery}${search}${base.hash}`).url;
    },
  };
}

/** Characters application/x-www-form-urlencoded writes as they are. */
const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;

/** `key=value` as URLSearchParams writes it. */
function formPair(key: string, value: string | number | boolean): string {
  const text = String(value);
  if (FORM_SAFE.test(key) && FORM_SAFE.test(text)) return `${key}=${text}`;
  return new URLSearchParams([[key, text]]).toString();
}

function absoluteUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new EgressDeniedError('(invalid URL)', '', 'not http(s)', 'the outbound URL is not a valid absolute URL');
  }
}
