import { CURSOR_ARGUMENT, takesCursorArgument, type BuiltRequest } from '../arguments/index.ts';
import { problem } from '../arguments/rules.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';
import type { ActionEntry } from '../definitions/index.ts';
import { validationError } from '../../platform/errors/index.ts';
import { decodeCursor, type CursorScope, type PagePosition } from './cursor-codec.ts';

const REFUSED = 'must be the meta.cursor of the previous page of this action, sent unchanged';

/**
 * Puts the page an engine cursor (NextUrl, Offset, Page) stands for into the
 * built request: the next URL as the whole request (its query included; the
 * action's own query is not sent again), or the offset or page number at its
 * key. A cursor that does not verify, or a URL off the API's origin for this
 * connection, is a 400 VALIDATION_ERROR on `cursor`, before anything is sent.
 * A Cursor pagination's token was placed by buildOutboundRequest.
 */
export function applyCursor(keyring: Keyring, scope: CursorScope, action: ActionEntry, given: unknown, built: BuiltRequest): void {
  const pagination = action.pagination?.definition;
  if (!pagination || pagination.type === 'Cursor' || !takesCursorArgument(action)) return;
  const cursor = given !== null && typeof given === 'object' ? (given as Record<string, unknown>)[CURSOR_ARGUMENT] : undefined;
  if (cursor === undefined || cursor === null || cursor === '') return;
  const decoded = decodeCursor(keyring, scope, String(cursor));
  if ('refused' in decoded) throw refused();
  place(decoded.position, pagination, built);
}

function place(position: PagePosition, pagination: NonNullable<ActionEntry['pagination']>['definition'], built: BuiltRequest): void {
  const request = built.request;
  if ('url' in position) {
    if (pagination.type !== 'NextUrl' || !URL.canParse(position.url) || new URL(position.url).origin !== new URL(request.url).origin) throw refused('its URL must be on the origin of the API');
    request.url = position.url;
    request.query = {};
    return;
  }
  const value = 'offset' in position ? position.offset : position.page;
  const key = pagination.type === 'Offset' && 'offset' in position ? pagination.offsetKey : pagination.type === 'Page' && 'page' in position ? pagination.pageKey : undefined;
  if (key === undefined || (pagination.type !== 'Offset' && pagination.type !== 'Page')) throw refused();
  if (pagination.location === 'Query') request.query = { ...request.query, [key]: String(value) };
  else request.body = { ...(request.body !== null && typeof request.body === 'object' ? request.body : {}), [key]: value };
}

function refused(why?: string) {
  return validationError([problem(CURSOR_ARGUMENT, 'cursor', why ? `${REFUSED} (${why})` : REFUSED)]);
}
