import type { PaginationEntry } from '../definitions/index.ts';
import { evaluated, isEmpty, type PageFacts } from './page-facts.ts';

/** Cursor with `next`: the app's own token, as it is (a string); undefined on the last page. */
export async function nextToken(pagination: PaginationEntry, facts: PageFacts): Promise<string | undefined> {
  const token = await evaluated(pagination, 'next', facts);
  if (isEmpty(token)) return undefined;
  return typeof token === 'string' ? token : JSON.stringify(token);
}
