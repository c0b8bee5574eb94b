import { CURSOR_ARGUMENT, takesCursorArgument, type BuiltRequest } from '../arguments/index.ts';
import { problem } from '../arguments/rules.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';
import type { ActionEntry } from '../definitions/index.ts';
import { validationError } from '../../platform/errors/index.ts';
import { decodeCursor, type CursorScope, type PagePosition } from './cursor-codec.ts';
import type { CursorPagination, PagePagination } from '../definitions/generated/definition-types.ts';
import { joinUrl } from '../arguments/placement.ts';
import { setPath } from '../arguments/json-path.ts';

const REFUSED = 'must be the meta.cursor of the previous page of this action, sent unchanged';

/**
 * Puts the page a cursor stands for into the built request. An engine cursor
 * (NextUrl, Offset, Page): the next URL as the whole request (its query
 * included; the action's own query is not sent again), or the offset or page
 * number at its key; a cursor that does not verify, or a URL off the API's
 * origin for this connection, is a 400 VALIDATION_ERROR on `cursor`, before
 * anything is sent. A Cursor pagination's token was placed by
 * buildOutboundRequest, unless the next page is another request
 * (`nextRequest`): then that request replaces the action's, with the token
 * alone. Without a cursor, a Page pagination with `sendFirstPage` asks for
 * `firstPage` by number.
 */
export function applyCursor(keyring: Keyring, scope: CursorScope, action: ActionEntry, given: unknown, built: BuiltRequest): void {
  const pagination = action.pagination?.definition;
  if (!pagination || !takesCursorArgument(action)) return;
  const cursor = given !== null && typeof given === 'object' ? (given as Record<string, unknown>)[CURSOR_ARGUMENT] : undefined;
  if (cursor === undefined || cursor === null || cursor === '') {
    if (pagination.type === 'Page' && pagination.sendFirstPage === true) placeFirstPage(pagination, built);
    return;
  }
  if (pagination.type === 'Cursor') {
    if (pagination.nextRequest) nextRequest(pagination, String(cursor), built);
    return;
  }
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

/** The first page by number, unless an argument of the action already set its key. */
function placeFirstPage(pagination: PagePagination, built: BuiltRequest): void {
  const request = built.request;
  const first = pagination.firstPage ?? 1;
  if (pagination.location === 'Query') {
    if (!Object.hasOwn(request.query, pagination.pageKey)) request.query = { ...request.query, [pagination.pageKey]: String(first) };
    return;
  }
  const body = request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
  if (!Object.hasOwn(body, pagination.pageKey)) request.body = { ...body, [pagination.pageKey]: first };
}

/**
 * The next page of a Cursor pagination with `nextRequest` (Dropbox's
 * files/list_folder/continue): its method to baseUrl + its path, with the
 * token at location and key (in the body, dots nest) and nothing else of the
 * action's query or body. Headers (the API's, Header arguments) and the auth
 * stay as built.
 */
function nextRequest(pagination: CursorPagination, cursor: string, built: BuiltRequest): void {
  const { method, path } = pagination.nextRequest!;
  const request = built.request;
  if (method) request.method = method;
  request.url = joinUrl(built.baseUrl, path);
  if (pagination.location === 'Query') {
    request.query = { [pagination.key]: cursor };
    request.body = undefined;
  } else {
    const body: Record<string, unknown> = {};
    setPath(body, pagination.key.split('.'), cursor);
    request.query = {};
    request.body = body;
  }
}

function refused(why?: string) {
  return validationError([problem(CURSOR_ARGUMENT, 'cursor', why ? `${REFUSED} (${why})` : REFUSED)]);
}
