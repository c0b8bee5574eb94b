import type { PagePagination } from '../definitions/generated/definition-types.ts';
import type { PaginationEntry } from '../definitions/index.ts';
import { asNumber, evaluated, isEmpty, sentNumber, type PageFacts } from './page-facts.ts';

/**
 * Page: with `next`, the page number the app gives (GitLab's X-Next-Page),
 * none when it is empty. Otherwise the page sent (firstPage when none was)
 * plus one, none when `last` is true, the page had no rows, it was short
 * (fewer rows than sizeKey asked for), it was page `totalPages`, or the pages
 * read hold `total` items.
 */
export async function nextPage(pagination: PaginationEntry, facts: PageFacts): Promise<{ page: number } | undefined> {
  const { location, pageKey, sizeKey, firstPage = 1 } = pagination.definition as PagePagination;
  if (pagination.expressions.next) {
    const given = await evaluated(pagination, 'next', facts);
    const page = isEmpty(given) ? undefined : asNumber(given);
    return page !== undefined && Number.isSafeInteger(page) ? { page } : undefined;
  }
  if ((await evaluated(pagination, 'last', facts)) === true || facts.rows === 0) return undefined;
  const size = sizeKey !== undefined ? sentNumber(facts, location, sizeKey) : undefined;
  if (size !== undefined && facts.rows < size) return undefined;
  const page = sentNumber(facts, location, pageKey) ?? firstPage;
  const pagesRead = page - firstPage + 1;
  const totalPages = asNumber(await evaluated(pagination, 'totalPages', facts));
  if (totalPages !== undefined && pagesRead >= totalPages) return undefined;
  const total = asNumber(await evaluated(pagination, 'total', facts));
  if (total !== undefined && size !== undefined && pagesRead * size >= total) return undefined;
  return { page: page + 1 };
}
