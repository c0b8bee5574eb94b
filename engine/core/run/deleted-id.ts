import type { BuiltRequest } from '../arguments/index.ts';
import type { ActionEntry } from '../definitions/index.ts';

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The id a delete removed, for the rows of a response that do not carry one:
 * 1. the value of the argument the action names in `idArgument`;
 * 2. else the last :param of the path (`/groups/:groupId/things/:thingId`
 *    deletes a thing, not its group);
 * 3. else a Query, then a Body, value sent as `id`.
 * Values are the caller's, as checked (before any mapper). Not a delete: undefined.
 */
export function deletedId(action: ActionEntry, built: BuiltRequest): unknown {
  if (action.operation !== 'delete') return undefined;
  const named = action.definition.idArgument;
  if (named !== undefined) return built.arguments[named];
  const lastParam = [...action.path.matchAll(PATH_PARAM)].map((m) => m[1]!).at(-1);
  if (lastParam !== undefined) {
    const arg = action.arguments.find((a) => a.location === 'Param' && a.parent === undefined && (a.externalKey ?? a.key) === lastParam);
    if (arg) return built.arguments[arg.key];
  }
  const query = built.request.query as Record<string, unknown>;
  if (query.id !== undefined) return query.id;
  const body = built.request.body as Record<string, unknown> | undefined;
  return body && typeof body === 'object' && !Array.isArray(body) ? body.id : undefined;
}
