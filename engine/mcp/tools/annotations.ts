import type { ActionEntry } from '../../core/definitions/index.ts';

/** The MCP tool annotations (hints a client may show or act on; never trusted for security). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

const READ_OPERATIONS = new Set(['list', 'get', 'search']);
const IDEMPOTENT_METHODS = new Set(['GET', 'PUT', 'DELETE']);

/**
 * What the action's operation (and, for `other`, its method) says about it:
 *
 *   list, get, search  read only, idempotent
 *   create             writes, adds (not destructive), not idempotent
 *   update             writes over what is there (destructive); idempotent when the method is PUT
 *   delete             destructive, idempotent (deleting twice leaves the same state)
 *   other              by the method: GET reads, DELETE destroys, GET/PUT/DELETE are idempotent
 *
 * Every tool reaches a third-party app: openWorldHint is always true.
 */
export function annotationsOf(action: ActionEntry, title: string): ToolAnnotations {
  const { operation, method } = action;
  const readOnly = READ_OPERATIONS.has(operation) || (operation === 'other' && method === 'GET');
  const destructive = !readOnly && (operation === 'delete' || operation === 'update' || (operation === 'other' && method === 'DELETE'));
  const idempotent = readOnly || operation === 'delete' || (operation !== 'create' && IDEMPOTENT_METHODS.has(method));
  return { title, readOnlyHint: readOnly, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: true };
}
