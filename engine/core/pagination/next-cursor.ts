import type { Keyring } from '../../platform/crypto/keyring.ts';
import type { PaginationEntry } from '../definitions/index.ts';
import type { Envelope } from '../run/envelope.ts';
import { encodeCursor, type CursorScope, type PagePosition } from './cursor-codec.ts';
import { nextOffset } from './next-offset.ts';
import { nextPage } from './next-page.ts';
import { nextToken } from './next-token.ts';
import { nextUrl } from './next-url.ts';
import type { PageFacts } from './page-facts.ts';

/**
 * Sets the envelope's meta.cursor for the pagination kinds the engine
 * computes: Cursor with `next` (the app's token as it is), NextUrl, Offset
 * and Page (a signed cursor of this action and connection). The mapping's own
 * meta.cursor is replaced; a failed run, or the last page, has none. A Cursor
 * pagination without `next` keeps the mapping's meta.cursor (as before).
 * An expression that fails throws its MappingError.
 */
export async function setNextCursor(envelope: Envelope, pagination: PaginationEntry | undefined, keyring: Keyring, scope: CursorScope, facts: PageFacts): Promise<void> {
  if (!pagination || (pagination.definition.type === 'Cursor' && !pagination.expressions.next)) return;
  delete envelope.meta.cursor;
  if (!envelope.success) return;
  const cursor = pagination.definition.type === 'Cursor' ? await nextToken(pagination, facts) : await signed(pagination, keyring, scope, facts);
  if (cursor !== undefined) envelope.meta.cursor = cursor;
}

async function signed(pagination: PaginationEntry, keyring: Keyring, scope: CursorScope, facts: PageFacts): Promise<string | undefined> {
  let position: PagePosition | undefined;
  if (pagination.definition.type === 'NextUrl') position = await nextUrl(pagination, facts);
  else if (pagination.definition.type === 'Offset') position = await nextOffset(pagination, facts);
  else if (pagination.definition.type === 'Page') position = await nextPage(pagination, facts);
  return position ? encodeCursor(keyring, scope, position) : undefined;
}
