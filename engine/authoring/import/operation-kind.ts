import type { ActionDefinition } from './imported-app.ts';
import { words } from './naming.ts';
import type { OperationInfo } from './operations.ts';

type Kind = ActionDefinition['operation'];

/** Verbs of operation ids and summaries, by what they do. */
const VERBS: [RegExp, Kind][] = [
  [/^(list|all|index|enumerate)$/, 'list'],
  [/^(search|query|find|filter|lookup)$/, 'search'],
  [/^(get|retrieve|read|fetch|show|info|describe|view|check)$/, 'get'],
  [/^(create|add|new|post|insert|send|make|register|upload|invite)$/, 'create'],
  [/^(update|edit|modify|patch|set|put|change|replace|rename|upsert)$/, 'update'],
  [/^(delete|remove|destroy|erase|purge|unset)$/, 'delete'],
];

/**
 * The action's `operation`, from the verb its id (or summary) opens with, the
 * method, and whether the response holds a listing:
 * - DELETE is a delete, PUT and PATCH an update;
 * - a GET (or a search) whose response is a listing is a list (or a search),
 *   another GET a get;
 * - a POST says what it is by its verb (create, search, delete, ...); an RPC
 *   call whose id names no known verb (`conversations.archive`) is other.
 */
export function operationKind(op: OperationInfo, listed: boolean): Kind {
  const verb = verbOf(op.operationId ?? '') ?? verbOf(typeof op.operation.summary === 'string' ? op.operation.summary : '');
  if (op.method === 'DELETE') return 'delete';
  if (op.method === 'PUT' || op.method === 'PATCH') return verb === 'create' ? 'create' : verb === 'delete' ? 'delete' : 'update';
  if (op.method === 'GET') {
    if (!listed) return 'get';
    return verb === 'search' ? 'search' : 'list';
  }
  // POST
  if (verb === 'list' || verb === 'search') return listed ? verb : 'other';
  if (verb === 'get') return listed ? 'search' : 'other';
  if (verb) return verb;
  return op.operationId ? 'other' : 'create';
}

function verbOf(text: string): Kind | undefined {
  for (const word of words(text).slice(0, 4)) {
    const lower = word.toLowerCase();
    for (const [pattern, kind] of VERBS) if (pattern.test(lower)) return kind;
  }
  return undefined;
}
