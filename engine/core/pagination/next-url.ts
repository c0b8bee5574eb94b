import type { NextUrlPagination } from '../definitions/generated/definition-types.ts';
import type { PaginationEntry } from '../definitions/index.ts';
import { linkWithRel } from './link-header.ts';
import { evaluated, isEmpty, type PageFacts } from './page-facts.ts';

/**
 * NextUrl: the URL of rel="next" in the Link header, or what `next` reads
 * from the response; a relative URL is resolved against the API's origin.
 * Undefined on the last page (or when the app gives something that is not a URL).
 */
export async function nextUrl(pagination: PaginationEntry, facts: PageFacts): Promise<{ url: string } | undefined> {
  const definition = pagination.definition as NextUrlPagination;
  const given = definition.from === 'LinkHeader' ? linkWithRel(facts.input.headers.link, 'next') : await evaluated(pagination, 'next', facts);
  if (isEmpty(given) || typeof given !== 'string') return undefined;
  const url = resolvedUrl(given.trim(), facts.origin);
  return url === undefined ? undefined : { url };
}

/** `text` as an absolute http(s) URL, a relative one resolved against `origin`; undefined when it is neither. */
export function resolvedUrl(text: string, origin: string): string | undefined {
  if (!URL.canParse(text, `${origin}/`)) return undefined;
  const url = new URL(text, `${origin}/`);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}
