import type { ApiDefinition, Argument } from '../generated/definition-types.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';

/**
 * ARG_ARRAY_STYLE_INVALID: an argument's arrayStyle says how its arrays are
 * written in a form body, so it applies only to a top-level Body argument of
 * an API whose bodyEncoding is Form; anywhere else it would be silently
 * ignored. `api` is the version's api.yaml (for an action's arguments, or
 * the API's and an auth's own).
 */
export function arrayStyleProblems(file: FileAnalysis, args: readonly Argument[] | undefined, api: ApiDefinition | undefined): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  (args ?? []).forEach((arg, i) => {
    if (arg.arrayStyle === undefined) return;
    const why =
      arg.location !== 'Body' || arg.parent !== undefined
        ? 'is not a top-level Body argument'
        : api !== undefined && (api.bodyEncoding ?? 'Json') !== 'Form'
          ? "is sent in a JSON body (api.yaml's bodyEncoding is not Form), where arrays are JSON arrays"
          : null;
    if (why !== null) {
      problems.push(
        problemAt(file.parsed!.locate(['arguments', i, 'arrayStyle']), 'ARG_ARRAY_STYLE_INVALID', `argument "${arg.key}" ${why}; arrayStyle says how a form body writes an array, so it applies only to a top-level Body argument of an API whose bodyEncoding is Form`),
      );
    }
  });
  return problems;
}
