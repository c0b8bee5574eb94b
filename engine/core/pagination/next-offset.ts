import type { OffsetPagination } from '../definitions/generated/definition-types.ts';
import type { PaginationEntry } from '../definitions/index.ts';
import { asNumber, evaluated, sentNumber, type PageFacts } from './page-facts.ts';

/**
 * Offset: the next page starts at the offset sent (0 when none was) plus the
 * limit sent (limitKey), or plus the rows of this page when no limit was
 * sent. There is none when `last` is true, the page had no rows, it was
 * short (fewer rows than the limit), or the next offset reaches `total`.
 */
export async function nextOffset(pagination: PaginationEntry, facts: PageFacts): Promise<{ offset: number } | undefined> {
  const { location, offsetKey, limitKey } = pagination.definition as OffsetPagination;
  if ((await evaluated(pagination, 'last', facts)) === true || facts.rows === 0) return undefined;
  const limit = limitKey !== undefined ? sentNumber(facts, location, limitKey) : undefined;
  if (limit !== undefined && facts.rows < limit) return undefined;
  const offset = (sentNumber(facts, location, offsetKey) ?? 0) + (limit ?? facts.rows);
  const total = asNumber(await evaluated(pagination, 'total', facts));
  if (total !== undefined && offset >= total) return undefined;
  return { offset };
}
