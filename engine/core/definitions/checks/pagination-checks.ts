import type { ApiDefinition, Pagination } from '../generated/definition-types.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';
import { PAGED_OPERATIONS } from '../snapshot.ts';

/** A NextUrl pagination reads the URL from exactly one place: the Link header (from) or an expression (next). */
export function nextUrlSourceProblems(file: FileAnalysis<'api'> | FileAnalysis<'action'>): DefinitionProblem[] {
  const pagination = file.definition?.pagination;
  if (pagination?.type !== 'NextUrl') return [];
  const both = pagination.from !== undefined && pagination.next !== undefined;
  if (!both && (pagination.from !== undefined || pagination.next !== undefined)) return [];
  const message = both
    ? 'pagination NextUrl takes the next URL from one place: from: LinkHeader or next: <expression>, not both'
    : 'pagination NextUrl needs from: LinkHeader (the Link header) or next: <expression> (the URL in the response)';
  return [problemAt(file.parsed!.locate(both ? ['pagination', 'next'] : ['pagination']), 'SCHEMA_INVALID', message)];
}

/**
 * PAGINATION_BODY_ON_GET: a paged GET action (list or search) whose
 * pagination (its own, else the API's) puts the cursor, offset or page in the
 * body: a GET sends no body, so every page would be the first. Located at the
 * action's pagination location when it has its own, else at its method. The
 * method that carries a cursor is a Cursor pagination's nextRequest's, when
 * it names one.
 */
export function paginationProblems(action: FileAnalysis<'action'>, api: ApiDefinition | undefined): DefinitionProblem[] {
  const def = action.definition!;
  if (!PAGED_OPERATIONS.has(def.operation)) return [];
  const own = def.pagination !== undefined;
  const pagination: Pagination | undefined = def.pagination ?? api?.pagination;
  if (!pagination || !('location' in pagination) || pagination.location !== 'Body') return [];
  const carrier = pagination.type === 'Cursor' && pagination.nextRequest ? (pagination.nextRequest.method ?? def.method) : def.method;
  if (carrier !== 'GET') return [];
  const what = pagination.type === 'Offset' ? 'offset' : pagination.type === 'Page' ? 'page number' : 'cursor';
  const where = own ? ['pagination', 'location'] : ['method'];
  const whose = own ? 'its pagination' : "api.yaml's pagination";
  return [
    problemAt(
      action.parsed!.locate(where),
      'PAGINATION_BODY_ON_GET',
      def.method === 'GET'
        ? `${def.operation} action ${def.id} is a GET, which sends no body, but ${whose} puts the ${what} in the Body: use location: Query, or give the action a pagination of its own`
        : `${def.operation} action ${def.id} asks for its next pages with a GET (nextRequest), which sends no body, but ${whose} puts the ${what} in the Body: use location: Query, or another method`,
    ),
  ];
}
