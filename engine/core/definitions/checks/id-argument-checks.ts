import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';

/**
 * `idArgument` names the top-level argument whose value is the id a delete
 * removed (engine/core/run/deleted-id.ts): it must be one, and only a
 * delete answers a deleted id.
 */
export function idArgumentProblems(action: FileAnalysis<'action'>): DefinitionProblem[] {
  const def = action.definition!;
  if (def.idArgument === undefined) return [];
  const at = action.parsed!.locate(['idArgument']);
  if (def.operation !== 'delete') {
    return [problemAt(at, 'ID_ARGUMENT_INVALID', `idArgument applies to operation delete only (this action is ${def.operation}); remove it`)];
  }
  const topLevel = (def.arguments ?? []).filter((a) => a.parent === undefined).map((a) => a.key);
  if (topLevel.includes(def.idArgument)) return [];
  return [
    problemAt(at, 'ID_ARGUMENT_INVALID', `idArgument "${def.idArgument}" is not a top-level argument of this action (its arguments: ${topLevel.join(', ') || 'none'})`),
  ];
}
