import type { AppFiles } from '../definition-tree.ts';
import type { DefinitionProblem } from '../problems.ts';
import { checkApps } from './app-checks.ts';
import { checkVersion } from './version-checks.ts';

/**
 * Stage 4: the rules across files and inside arguments that a JSON Schema
 * cannot express. Each has its own code (see PROBLEM_CODES). Files that
 * failed their schema are skipped here, but their id is still known, so one
 * broken file does not make every reference to it an error too.
 */
export function checkDefinitions(apps: AppFiles[]): DefinitionProblem[] {
  return [...checkApps(apps), ...apps.flatMap((app) => [...app.versions.values()].flatMap(checkVersion))];
}
