import type { AppFiles } from '../definition-tree.ts';
import type { DefinitionProblem } from '../problems.ts';
import { checkPublished } from './app-checks.ts';
import { checkVersion } from './version-checks.ts';

export { checkAppNames } from './app-checks.ts';

/**
 * Stage 4: the rules across files and inside arguments that a JSON Schema
 * cannot express. Each has its own code (see PROBLEM_CODES). Files that
 * failed their schema are skipped here, but their id is still known, so one
 * broken file does not make every reference to it an error too.
 *
 * Every rule but one looks inside one app folder only, so an app whose files
 * did not change keeps its problems from the last load; the one rule across
 * apps (unique ids and slugs) is checkAppNames.
 */
export function checkApp(app: AppFiles): DefinitionProblem[] {
  return [...checkPublished(app), ...[...app.versions.values()].flatMap(checkVersion)];
}
