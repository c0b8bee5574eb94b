import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem, type ProblemCode } from '../problems.ts';

/**
 * Reports every file after the first that uses an id or slug already taken;
 * the message names the first file so an author sees both.
 *
 *   github/app.yaml        id: github
 *   github-copy/app.yaml   id: github   <- APP_ID_DUPLICATE here
 */
export function duplicateNames(
  files: FileAnalysis[],
  field: 'id' | 'slug',
  code: ProblemCode,
  what: string,
): DefinitionProblem[] {
  const first = new Map<string, FileAnalysis>();
  const problems: DefinitionProblem[] = [];
  for (const file of files) {
    const name = file.names[field];
    if (name === undefined || !file.parsed) continue;
    const earlier = first.get(name);
    if (!earlier) {
      first.set(name, file);
      continue;
    }
    problems.push(problemAt(file.parsed.locate([field]), code, `${what} ${field} "${name}" is already used by ${earlier.source.file}`));
  }
  return problems;
}
